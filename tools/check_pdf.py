"""Check the PDF of the book: a handout an instructor can print.

Usage: ``python tools/check_pdf.py _build/latex/tabular-trees.pdf [--min-pages N] [--edition student|instructors]``.

Reads the title (the first ``# `` heading) of every file listed in ``_toc.yml``, extracts the PDF's text with
``pdftotext`` and its page count with ``pdfinfo`` (both from poppler-utils), prints the page count, and exits
with status 1 when

- a title is missing, or the PDF has fewer than ``--min-pages`` pages;
- the contents (the LaTeX ``.toc`` file next to the PDF) do not list every part of ``_toc.yml`` as a part and
  every page under it as a chapter of that part;
- the edition holds the wrong pages: the student edition (the default) has the introduction, chapters 1-10, the
  glossary and the references, and none of the instructors' pages (``book_ext.INSTRUCTOR_PAGES``: the appendix,
  the reproduction notes, the instructors' page, the API reference, the execution report); the instructors'
  edition (``--edition instructors``, built with ``TABULAR_TREES_EDITION=instructors``) has every page;
- the LaTeX log (the ``.log`` next to the PDF) reports a missing character (a glyph the font lacks);
- an output shows a placeholder instead of a picture or a table (``<IPython.core.display.HTML object>``,
  ``<pandas.io.formats.style.Styler at 0x...>``);
- a table cell is cut short (pandas' ``...`` at the end of a cell);
- a chapter is empty (its first page carries its title and almost nothing else, as a heading over a
  bibliography that starts a chapter of its own);
- an exercise, theorem, definition, ... is not numbered within its chapter in order ("Exercise 8.2" is the
  second exercise of chapter 8, the id its check cell uses; read from the LaTeX source next to the PDF);
- a hidden-check cell (``# Hidden checks ...``) is printed, or, in a student edition (built with
  ``TABULAR_TREES_HIDE_SOLUTIONS=1``: no "Solution to Exercise" box in it, or ``--student``), an exercise's
  verdict (``✓ Exercise 7.2: right ...``), which can give the answer away, or a solution;
- a table is wider than its box (an overfull box inside a table in the LaTeX log: digits printed over their
  neighbours or cut at the margin);
- raw LaTeX or MyST reaches the text (``\\operatorname`` set as words, a ``{numref}`` role or a ```` ``` ```` fence
  printed as it was typed: read from the LaTeX source outside code);
- a code name is hyphenated at a line's end (``ran-`` / ``dom_state``: the reader cannot tell the hyphen from the
  name).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import API_PAGE, INSTRUCTOR_PAGES  # noqa: E402  (the pages only the instructors' edition prints)
_MISSING_RE = re.compile(r"^Missing character: There is no (.+?) in font (.+?)!?$", re.M)
# an object's default repr: "<IPython.core.display.HTML object>", "<pandas.io.formats.style.Styler at 0x7f4a...>"
_PLACEHOLDER_RE = re.compile(r"<[A-Za-z_][\w.]*(?:\s+object(?:\s+at\s+0x[0-9a-fA-F]+)?|\s+at\s+0x[0-9a-fA-F]+)>")
# pandas cuts a long cell to display.max_colwidth characters and ends it with "..." (a letter, digit or closing
# bracket right before the dots, and the cell's end right after them).
_TRUNCATED_RE = re.compile(r"[A-Za-z0-9)\]]\.\.\.(?=\s|$)")


def _toc_files(root: Path = ROOT) -> list[str]:
    """The root page and every file of ``_toc.yml``, in order."""
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    return re.findall(r"^\s*root:\s*(\S+)", toc, re.M) + re.findall(r"file:\s*(\S+)", toc)


def chapter_titles(root: Path = ROOT, exclude=()) -> list[str]:
    """The ``# `` title of every file in ``_toc.yml`` (root page included) but those in ``exclude``, in order."""
    titles = []
    for name in _toc_files(root):
        if name in exclude:
            continue
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


def toc_parts(root: Path = ROOT, exclude=()) -> list[tuple[str, list[str]]]:
    """The parts of ``_toc.yml``: (caption, [title of each of its files but those in ``exclude``]) in order."""
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    titles = iter(chapter_titles(root, exclude)[1:])  # the files' titles in order, after the root page
    parts = []
    for block in re.split(r"^\s*- caption:", toc, flags=re.M)[1:]:
        caption = block.splitlines()[0].strip()
        files = [f for f in re.findall(r"file:\s*(\S+)", block) if f not in exclude]
        parts.append((caption, [next(titles) for _ in files]))
    return parts


_CHAPTER_RE = re.compile(r"^\\chapter\{")
_ADMONITION_RE = re.compile(r"\\begin\{sphinxadmonition\}\{note\}\{([A-Z][a-z]+) (\d+(?:\.\d+)*)(?=[\s}])")
_NUMBERED_KINDS = {"Exercise", "Theorem", "Definition", "Proposition", "Lemma", "Corollary", "Algorithm",
                   "Example", "Conjecture", "Axiom", "Criterion", "Remark", "Property", "Observation",
                   "Assumption", "Notation"}


def tex_numbering_problems(tex: str) -> list[str]:
    """Exercises and theorem-like blocks of the LaTeX source numbered N.k: N the chapter they stand in (LaTeX's
    chapter counter, which runs on across parts), k their position among the chapter's blocks of that kind."""
    problems, chapter, seen = [], 0, {}
    for line in tex.splitlines():
        if _CHAPTER_RE.match(line):
            chapter, seen = chapter + 1, {}
            continue
        match = _ADMONITION_RE.search(line)
        if match and match.group(1) in _NUMBERED_KINDS:
            kind, number = match.group(1), match.group(2)
            seen[kind] = seen.get(kind, 0) + 1
            if number != f"{chapter}.{seen[kind]}":
                problems.append(f"{kind} {number} is {kind.lower()} {seen[kind]} of chapter {chapter}: "
                                f"expected {kind} {chapter}.{seen[kind]}")
    return problems


def missing_characters(log_text: str) -> list[str]:
    """The distinct "Missing character" warnings of a (Xe)LaTeX log, with how often each occurs."""
    found = _MISSING_RE.findall(log_text)
    return [f"missing character {char} in font {font} ({found.count((char, font))}x)"
            for char, font in dict.fromkeys(found)]


def placeholders(text: str) -> list[str]:
    """Outputs that print an object's ``repr`` where a picture or a table belongs."""
    return sorted(set(_PLACEHOLDER_RE.findall(text)))


def truncated_cells(text: str) -> list[str]:
    """Lines of the PDF's text with a cell that pandas cut short ("(be...")."""
    return [line.strip() for line in text.splitlines() if _TRUNCATED_RE.search(line)]


def empty_chapters(pages: list[str], min_chars: int = 120) -> list[str]:
    """Chapters whose first page shows the heading and fewer than ``min_chars`` letters and digits of text.

    ``pages`` is the PDF's text page by page (``pdftotext``, pages split at form feeds). A chapter's first page
    begins with the word CHAPTER (the heading style of Sphinx's LaTeX, which also capitalises the number word and
    the title); its text is every line with a lower-case letter (the page number and the heading have none)."""
    problems = []
    for number, page in enumerate(pages, start=1):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        if not lines or lines[0] != "CHAPTER":
            continue
        title_lines = []
        for line in lines[2:]:  # after CHAPTER and the number word, the capitalised title
            if re.search(r"[a-z]", line) or line.isdigit():
                break
            title_lines.append(line)
        body = _plain(" ".join(line for line in lines[1:] if re.search(r"[a-z]", line)))
        if len(body) < min_chars:
            title = " ".join(title_lines).title() or "?"
            problems.append(f"page {number}: the chapter '{title}' is empty ({len(body)} characters on its first page)")
    return problems


_VERDICT_RE = re.compile(r"^\s*[✓≈✗…]\s*Exercise\s+\d+\.\d+:.*$", re.M)
_HIDDEN_CHECK_RE = re.compile(r"^\s*(?:\d+\s+)?#\s*Hidden checks?\b.*$", re.M | re.I)


def is_student_edition(text: str) -> bool:
    """A PDF built with solutions withheld has no solution box (sphinx-exercise titles them "Solution to ...")."""
    return re.search(r"Solution\s+to\s+Exercise", text) is None


def answer_problems(text: str, student: bool) -> list[str]:
    """Hidden-check cells printed anywhere; verdicts printed in a student edition."""
    problems = [f"hidden-check cell printed: {m.group(0).strip()[:100]}" for m in _HIDDEN_CHECK_RE.finditer(text)]
    if student:
        problems += [f"verdict printed in a student edition: {m.group(0).strip()[:100]}"
                     for m in _VERDICT_RE.finditer(text)]
    return problems


_OVERFULL_RE = re.compile(r"^Overfull \\hbox \(([0-9.]+)pt too wide\) in (?:paragraph|alignment) at lines (\d+)--(\d+)",
                          re.M)
_TABLE_ENVS = ("tabulary", "tabular", "tabular*", "longtable", "TTfit")


def table_spans(tex: str) -> list[tuple[int, int]]:
    """(first, last) line of every table environment of a LaTeX source (1-based, outermost tables only)."""
    spans, depth, start = [], 0, 0
    for number, line in enumerate(tex.splitlines(), start=1):
        for match in re.finditer(r"\\(begin|end)\{([A-Za-z*]+)\}", line):
            if match.group(2) not in _TABLE_ENVS:
                continue
            if match.group(1) == "begin":
                depth += 1
                if depth == 1:
                    start = number
            elif depth:
                depth -= 1
                if depth == 0:
                    spans.append((start, number))
    return spans


def overfull_tables(log_text: str, tex: str) -> list[str]:
    """Overfull boxes the LaTeX log reports inside a table: a cell wider than its column (digits printed over the
    next cell) or a table wider than the text."""
    spans = table_spans(tex)
    problems = []
    for points, first, last in _OVERFULL_RE.findall(log_text):
        first, last = int(first), int(last)
        if any(start <= first and last <= end for start, end in spans):
            problems.append(f"table wider than its box by {float(points):.1f} pt (LaTeX source lines {first}-{last})")
    return problems


# code and inline code, which may show backslashes and braces on purpose
_VERBATIM_RE = re.compile(r"\\begin\{(sphinxVerbatim|Verbatim|sphinxalltt|alltt)\}.*?\\end\{\1\}", re.S)
_INLINE_CODE_RE = re.compile(r"\\sphinxupquote\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}")
_RAW_SOURCE_RES = [
    (re.compile(r"\\textbackslash\{\}[A-Za-z]{2,}"), "raw LaTeX"),
    (re.compile(r"\\\{(?:numref|ref|doc|eq|math|cite[:a-z]*|term|prf:[a-z]+|solution|exercise|figure|code-cell|"
                r"admonition|note|warning|glue[:a-z]*|only|interactive-figure)\\\}"), "MyST role or directive"),
    (re.compile(r"\\textasciigrave\{\}\\textasciigrave\{\}\\textasciigrave\{\}"), "MyST code fence"),
    (re.compile(r"(?<![\\\w]):::(?!\w)"), "MyST colon fence"),
    (re.compile(r"\\\$\\\$"), "unconverted display math"),
]


def raw_source(tex: str) -> list[str]:
    """Raw LaTeX or MyST that reached the printed text (outside code): what the reader sees is the source."""
    body = tex.split(r"\begin{document}", 1)[-1]
    body = _INLINE_CODE_RE.sub("", _VERBATIM_RE.sub("", body))
    problems = []
    for pattern, kind in _RAW_SOURCE_RES:
        for match in pattern.finditer(body):
            context = body[max(0, match.start() - 40):match.end() + 40].replace("\n", " ")
            problems.append(f"{kind} in the text: ...{context}...")
    return problems


def inline_code_names(tex: str) -> set[str]:
    """The words (letters, digits, underscores and dots) of every inline code span of a LaTeX source."""
    names = set()
    for span in _INLINE_CODE_RE.findall(tex):
        text = span.replace(r"\_", "_").replace(r"\sphinxhyphen{}", "-")
        text = re.sub(r"\\[A-Za-z]+\{\}|\\[A-Za-z]+", " ", text)
        names.update(re.findall(r"[A-Za-z_][\w.]*\w", text))
    return names


def _looks_like_code(word: str) -> bool:
    return bool(re.search(r"[_.]|[a-z][A-Z]", word))


def hyphenated_names(text: str, names: set[str]) -> list[str]:
    """Code names of ``names`` hyphenated at a line's end in the PDF's ``text`` ("ran-" then "dom_state"): the word
    before the hyphen and the one starting the next line make a name (not a name with that hyphen in it)."""
    problems = []
    lines = text.splitlines()
    for line, following in zip(lines, lines[1:]):
        end = re.search(r"([A-Za-z_][\w.]*)-$", line.rstrip())
        start = re.match(r"\s*([\w.]+)", following)
        if not end or not start:
            continue
        joined = end.group(1) + start.group(1)
        if len(joined) < 5 or not _looks_like_code(joined) or end.group(1) + "-" + start.group(1) in names:
            continue
        if any(joined in name for name in names):
            problems.append(f"code name hyphenated: {end.group(1)}- / {start.group(1)}")
    return problems


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
    parser.add_argument("--student", action="store_true",
                        help="a student edition (solutions withheld) even if the PDF's text does not show it")
    parser.add_argument("--edition", choices=("student", "instructors"), default="student",
                        help="the edition the PDF is (built with TABULAR_TREES_EDITION; default: student)")
    args = parser.parse_args(argv)
    if not args.pdf.is_file():
        print(f"no PDF at {args.pdf}; build it with: jupyter-book build . --builder pdflatex")
        return 1
    exclude = INSTRUCTOR_PAGES if args.edition == "student" else ()
    info = subprocess.run(["pdfinfo", str(args.pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    raw = subprocess.run(["pdftotext", "-layout", str(args.pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    text = normalise(raw)
    titles = chapter_titles(exclude=exclude)
    missing = [t for t in titles if normalise(re.sub(r"[*_`]", "", t)) not in text]
    print(f"{args.pdf}: {pages} pages, {len(titles) - len(missing)} of {len(titles)} titles found")
    problems = [f"missing title: {t}" for t in missing]
    if pages < args.min_pages:
        problems.append(f"only {pages} pages, expected at least {args.min_pages}")
    toc_file = args.pdf.with_suffix(".toc")
    if not toc_file.is_file():
        print(f"no LaTeX contents file {toc_file} next to the PDF: cannot check the book's structure")
        return 1
    entries = contents_lines(toc_file)
    structure = structure_problems(entries, toc_parts(exclude=exclude))
    n_chapters = sum(len(t) for _, t in toc_parts(exclude=exclude))
    print(f"contents: {len(toc_parts())} parts and {n_chapters} chapters expected at chapter level, "
          f"{len(structure)} problem(s)")
    problems += structure
    if args.edition == "student":
        titles_left_out = {_plain(t) for t in chapter_titles() if t not in chapter_titles(exclude=exclude)}
        for level, text_ in entries:
            if level == "chapter" and any(text_.endswith(t) for t in titles_left_out):
                problems.append(f"an instructors' page is in the student edition: {text_}")
    log_file = args.pdf.with_suffix(".log")
    if log_file.is_file():
        problems += missing_characters(log_file.read_text(encoding="utf-8", errors="replace"))
    else:
        problems.append(f"no LaTeX log {log_file} next to the PDF: cannot check for missing characters")
    problems += [f"placeholder instead of a picture or table: {p}" for p in placeholders(raw)]
    problems += [f"truncated table cell: {line[:100]}" for line in truncated_cells(raw)]
    problems += empty_chapters(raw.split("\f"))
    student = args.student or args.edition == "student" or is_student_edition(raw)
    print(f"edition: {'student (solutions withheld)' if student else 'instructors (with solutions)'}")
    problems += answer_problems(raw, student)
    if student and not is_student_edition(raw):
        problems.append("a solution is printed in the student edition")
    tex_file = args.pdf.with_suffix(".tex")
    if tex_file.is_file():
        tex = tex_file.read_text(encoding="utf-8", errors="replace")
        problems += tex_numbering_problems(tex)
        problems += raw_source(tex)
        problems += hyphenated_names(raw, inline_code_names(tex))
        if log_file.is_file():
            overfull = overfull_tables(log_file.read_text(encoding="utf-8", errors="replace"), tex)
            print(f"overfull boxes in tables: {len(overfull)}")
            problems += overfull
    else:
        problems.append(f"no LaTeX source {tex_file} next to the PDF: cannot check the numbering")
    for problem in problems:
        print(problem)
    print(f"check_pdf: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
