"""Check the PDF of the book: page count, every chapter title of ``_toc.yml``, and the book's structure.

Usage: ``python tools/check_pdf.py _build/latex/tabular-trees.pdf [--min-pages N]``.

Reads the title (the first ``# `` heading) of every file listed in ``_toc.yml``, extracts the PDF's text with
``pdftotext`` and its page count with ``pdfinfo`` (both from poppler-utils), prints the page count, and exits
with status 1 when a title is missing, the PDF has fewer than ``--min-pages`` pages, or the contents (the LaTeX
``.toc`` file next to the PDF) do not list every part of ``_toc.yml`` as a part and every page under it as a
chapter of that part.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chapter_titles(root: Path = ROOT) -> list[str]:
    """The ``# `` title of every file in ``_toc.yml`` (root page included), in order."""
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    files = re.findall(r"^\s*root:\s*(\S+)", toc, re.M) + re.findall(r"file:\s*(\S+)", toc)
    titles = []
    for name in files:
        md, nb = root / (name + ".md"), root / (name + ".ipynb")
        if nb.exists():
            cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        elif md.exists():
            text = md.read_text(encoding="utf-8")
        else:
            raise FileNotFoundError(f"_toc.yml lists {name}, which does not exist")
        match = re.search(r"^# (.+)$", text, re.M)
        if match is None:
            raise ValueError(f"{name} has no '# ' title")
        titles.append(match.group(1).strip())
    return titles


def toc_parts(root: Path = ROOT) -> list[tuple[str, list[str]]]:
    """The parts of ``_toc.yml``: (caption, [title of each of its files]) in order."""
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    titles = iter(chapter_titles(root)[1:])  # the files' titles in order, after the root page
    parts = []
    for block in re.split(r"^\s*- caption:", toc, flags=re.M)[1:]:
        caption = block.splitlines()[0].strip()
        parts.append((caption, [next(titles) for _ in re.findall(r"file:\s*(\S+)", block)]))
    return parts


def _plain(latex: str) -> str:
    """Letters and digits of a LaTeX contents entry or a title, lower-cased (what survives typesetting)."""
    latex = re.sub(r"\\(?:numberline|hspace)\s*\{[^}]*\}", "", latex)
    latex = re.sub(r"\\[A-Za-z]+\d*", "", latex)
    return re.sub(r"[^0-9a-z]", "", unicodedata.normalize("NFKD", latex).lower())


def contents_lines(toc_file: Path) -> list[tuple[str, str]]:
    """(level, text) of every line of the LaTeX contents file (``part``, ``chapter``, ``section``, ...)."""
    entries = []
    for line in toc_file.read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.match(r"\\contentsline\s*\{(\w+)\}\{(.*)\}\{[^{}]*\}\{[^{}]*\}%?$", line)
        if match:
            entries.append((match.group(1), _plain(match.group(2))))
    return entries


def structure_problems(entries: list[tuple[str, str]], parts: list[tuple[str, list[str]]]) -> list[str]:
    """What is wrong with the PDF's contents: every part of ``_toc.yml`` is a LaTeX part, in order, and every
    file under it is a chapter of that part (not a section of something else)."""
    problems, position = [], 0
    for caption, titles in parts:
        # a part's entry is its number, a space and its caption ("I\\hspace {1em}Foundations")
        at = next((i for i in range(position, len(entries))
                   if entries[i][0] == "part" and entries[i][1].endswith(_plain(caption))), None)
        if at is None:
            problems.append(f"the contents have no part '{caption}' (after the previous part)")
            continue
        following = []
        for level, text in entries[at + 1:]:
            if level == "part":
                break
            if level == "chapter":
                following.append(text)
        for title in titles:
            if not any(text.startswith(_plain(title)[:40]) for text in following):
                problems.append(f"'{title}' is not a chapter of the part '{caption}' in the contents")
        position = at + 1
    return problems


def normalise(text: str) -> str:
    """Fold what LaTeX and pdftotext change: ligatures, quotes, dashes, hyphenation and whitespace."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u00ad", "")
    text = re.sub(r"-\s*\n\s*", "-", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--min-pages", type=int, default=50, help="fail below this many pages (default 50)")
    args = parser.parse_args(argv)
    if not args.pdf.is_file():
        print(f"no PDF at {args.pdf}; build it with: jupyter-book build . --builder pdflatex")
        return 1
    info = subprocess.run(["pdfinfo", str(args.pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    text = normalise(subprocess.run(["pdftotext", "-layout", str(args.pdf), "-"], capture_output=True,
                                    text=True, check=True).stdout)
    missing = [t for t in chapter_titles() if normalise(re.sub(r"[*_`]", "", t)) not in text]
    print(f"{args.pdf}: {pages} pages, {len(chapter_titles()) - len(missing)} of {len(chapter_titles())} titles found")
    for t in missing:
        print(f"missing title: {t}")
    if pages < args.min_pages:
        print(f"only {pages} pages, expected at least {args.min_pages}")
    toc_file = args.pdf.with_suffix(".toc")
    if not toc_file.is_file():
        print(f"no LaTeX contents file {toc_file} next to the PDF: cannot check the book's structure")
        return 1
    problems = structure_problems(contents_lines(toc_file), toc_parts())
    n_chapters = sum(len(titles) for _, titles in toc_parts())
    print(f"contents: {len(toc_parts())} parts and {n_chapters} chapters expected at chapter level, "
          f"{len(problems)} problem(s)")
    for problem in problems:
        print(problem)
    return 1 if missing or problems or pages < args.min_pages else 0


if __name__ == "__main__":
    sys.exit(main())
