"""Check the built book's numbering: chapter, exercise, theorem and figure numbers against the file names and
the exercises' check ids.

Usage: ``python tools/check_numbering.py [_build/html]`` (after the README's book command).

For every page of a numbered chapter ``book/NN_*`` the built HTML must show

- the chapter's number ``NN`` in its title (``<span class="section-number">NN. </span>``);
- its exercises as ``Exercise NN.1``, ``Exercise NN.2``, ... in order, the k-th exercise's number equal to the id
  of the k-th visible ``check("NN.k", ...)`` call of the page (the id the self-check uses);
- every theorem, definition, proposition, lemma, ... and every figure numbered within the chapter (``NN.k``).

``numbering_problems`` does the work on one page's HTML; ``tests/test_numbering.py`` runs it on a tiny book built
with this repository's ``_toc.yml`` and ``_config.yml`` numbering, and CI runs this script on the full build.
Exit status 1 on any problem; each problem is printed. Titles that quote a paper's number without naming it as
the paper's ("Theorem 8.1 (... (Theorem 2.1))") are printed as warnings.
"""

from __future__ import annotations

import html as html_lib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTER_RE = re.compile(r"^(\d\d)_")
_TAG_RE = re.compile(r"<[^>]+>")
# sphinx-exercise and sphinx-proof titles: <p class="admonition-title">Exercise 8.2 (…)</p>
_TITLE_RE = re.compile(r'<p class="admonition-title"[^>]*>(.*?)</p>', re.S)
_ENUMERATED = ("Exercise", "Theorem", "Definition", "Proposition", "Lemma", "Corollary", "Algorithm", "Example",
               "Conjecture", "Axiom", "Criterion", "Remark", "Property", "Observation", "Assumption", "Notation")
_FIGURE_RE = re.compile(r'<span class="caption-number">\s*Fig\.\s*([\d.]+)\s*</span>')
_H1_RE = re.compile(r'<h1[^>]*>\s*<span class="section-number">([\d.]+)\s*</span>')
_CODE_RE = re.compile(r'<div class="highlight[^"]*"[^>]*><pre>(.*?)</pre>', re.S)
_CHECK_RE = re.compile(r"""\bcheck\(\s*["'](\d+\.\d+)["']""")


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(_TAG_RE.sub("", fragment))).strip()


def numbering_problems(page_html: str, chapter: int) -> list[str]:
    """What is wrong with the numbering of one chapter page (``chapter`` is the NN of its file name)."""
    problems = []
    h1 = _H1_RE.search(page_html)
    if h1 is None:
        problems.append(f"the title carries no chapter number (expected {chapter})")
    elif h1.group(1).rstrip(".") != str(chapter):
        problems.append(f"the title is numbered {h1.group(1).rstrip('.')}, the file {chapter:02d}")
    exercises, others = [], []
    for raw in _TITLE_RE.findall(page_html):
        title = _text(raw)
        match = re.match(rf"({'|'.join(_ENUMERATED)}) ([\d.]+)\b", title)
        if match is None:
            continue
        (exercises if match.group(1) == "Exercise" else others).append((match.group(1), match.group(2), title))
    checks = []
    for code in _CODE_RE.findall(page_html):
        checks += _CHECK_RE.findall(_text(code))
    # The visible check cells name each id once, in order (the hidden cells are removed from the page).
    seen = list(dict.fromkeys(checks))
    for k, (_, number, title) in enumerate(exercises, start=1):
        if number != f"{chapter}.{k}":
            problems.append(f"'{title[:60]}' is exercise {k} of chapter {chapter}: expected Exercise {chapter}.{k}")
        if k <= len(seen) and seen[k - 1] != number:
            problems.append(f"'{title[:60]}' is numbered {number} but its check cell uses check(\"{seen[k - 1]}\")")
    if len(seen) > len(exercises):
        problems.append(f"{len(seen)} check ids ({', '.join(seen)}) but {len(exercises)} numbered exercises")
    for kind, number, title in others:
        if not number.startswith(f"{chapter}."):
            problems.append(f"'{title[:60]}': {kind} {number} is not numbered within chapter {chapter}")
    for number in _FIGURE_RE.findall(page_html):
        if not number.rstrip(".").startswith(f"{chapter}."):
            problems.append(f"Fig. {number} is not numbered within chapter {chapter}")
    return problems


_PAPER_NUMBER_RE = re.compile(r"\(([^()]*\b(?:Theorem|Proposition|Lemma|Corollary|Definition|Fig\.|Figure) \d[^()]*)\)")


def paper_number_warnings(page_html: str) -> list[str]:
    """Titles of numbered blocks that quote another numbering (a paper's) without naming it as the paper's:
    "Theorem 8.1 (NTK ... (Theorem 2.1))" reads as two numberings of the book. Printed as warnings."""
    warnings = []
    for raw in _TITLE_RE.findall(page_html):
        title = _text(raw)
        if not re.match(rf"({'|'.join(_ENUMERATED)}) [\d.]+\b", title):
            continue
        for quoted in _PAPER_NUMBER_RE.findall(title.split(" ", 2)[-1]):
            if "paper" not in quoted.lower():
                warnings.append(f"'{title[:80]}' quotes '{quoted}' without naming it as the paper's")
    return warnings


def check_site(html_dir: Path) -> list[str]:
    """Problems of every numbered chapter page (``book/NN_*.html``) under ``html_dir``."""
    pages = sorted((html_dir / "book").glob("[0-9][0-9]_*.html"))
    if not pages:
        return [f"no chapter pages under {html_dir / 'book'}: build the book first"]
    problems = []
    for page in pages:
        chapter = int(CHAPTER_RE.match(page.name).group(1))
        problems += [f"{page.name}: {p}" for p in numbering_problems(page.read_text(encoding="utf-8"), chapter)]
    return problems


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    html_dir = Path(argv[0]) if argv else ROOT / "_build" / "html"
    problems = check_site(html_dir)
    for problem in problems:
        print(problem)
    for page in sorted((html_dir / "book").glob("[0-9][0-9]_*.html")):
        for warning in paper_number_warnings(page.read_text(encoding="utf-8")):
            print(f"warning: {page.name}: {warning}")
    n_pages = len(list((html_dir / "book").glob("[0-9][0-9]_*.html")))
    print(f"numbering: {n_pages} chapter pages checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
