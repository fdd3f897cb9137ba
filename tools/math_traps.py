"""Find math that Markdown breaks apart: a ``$`` left unmatched after MyST has parsed a page.

Usage: ``python tools/math_traps.py [FILE ...]`` (default: every notebook and Markdown page of ``book/``).

Inside a paragraph, a line of a ``$...$`` or ``$$...$$`` formula that starts with ``+ ``, ``- ``, ``* ``, ``1. ``,
``# `` or ``>`` starts a list, a heading or a quote; a ``$$`` that directly follows a line of text is inline
math of that paragraph, so the same holds for its lines. The formula is then cut in two and both halves are
printed as raw TeX. The scanner parses each Markdown source with MyST's own parser and this book's extensions,
descends into directives (``{prf:proof}``, ``{exercise}``, ...) and reports every text run that still holds a ``$``
(file, cell, line, text). Fix: keep the operator at the end of the previous line, leave a blank line before a
``$$`` display, or write the display as a ``{math}`` block or ``\\begin{aligned}``. A dollar sign meant as
currency is written ``\\$``.

``tests/test_book_structure.py`` runs it on every page.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTENSIONS = {"amsmath", "colon_fence", "deflist", "dollarmath", "substitution"}  # as in _config.yml
# directives whose body is not Markdown
RAW_DIRECTIVES = {"code", "code-block", "sourcecode", "code-cell", "math", "raw", "literalinclude", "eval-rst",
                  "bibliography", "csv-table", "list-table", "mermaid", "glue:math", "tableofcontents"}
_DOLLAR = re.compile(r"(?<!\\)\$")
_DIRECTIVE = re.compile(r"^\{([^}]+)\}")


@dataclass(frozen=True)
class Trap:
    path: str
    cell: int | None  # notebook cell index (None for a .md page)
    line: int  # 1-based line within the cell or page
    text: str

    def __str__(self) -> str:
        where = f"cell {self.cell}, line {self.line}" if self.cell is not None else f"line {self.line}"
        return f"{self.path}: {where}: {self.text}"


def _parser():
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.base import DocutilsRenderer
    from myst_parser.parsers.mdit import create_md_parser

    md = create_md_parser(MdParserConfig(enable_extensions=EXTENSIONS), DocutilsRenderer)
    if "text_join" in [rule.name for rule in md.core.ruler.__rules__]:
        md.disable("text_join")  # keep an escaped dollar (``\\$``) apart from the text around it
    return md


def _directive_body(content: str) -> tuple[str, int]:
    """A directive's Markdown body without its option lines (``:key: value`` or a ``---`` YAML block), and the
    number of lines removed."""
    lines = content.splitlines(keepends=True)
    skip = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        skip = end + 1 if end is not None else 0
    else:
        while skip < len(lines) and re.match(r"^:[\w-]+:", lines[skip]):
            skip += 1
    return "".join(lines[skip:]), skip


def traps_in_markdown(text: str, md=None, offset: int = 0) -> list[tuple[int, str]]:
    """(1-based line, text) of every run of parsed text in ``text`` that holds an unmatched ``$``."""
    md = md or _parser()
    found = []
    for token in md.parse(text):
        if token.type in {"fence", "colon_fence"}:
            match = _DIRECTIVE.match(token.info.strip())
            if match and match.group(1).strip() not in RAW_DIRECTIVES and token.map:
                body, skip = _directive_body(token.content)
                found += traps_in_markdown(body, md, offset + token.map[0] + 1 + skip)
        elif token.type == "inline" and token.children:
            if any(child.type == "text" and _DOLLAR.search(child.content) for child in token.children):
                # name the first source line of the broken paragraph (or list item) that holds a dollar
                lines = token.content.splitlines() or [""]
                index = next((i for i, ln in enumerate(lines) if _DOLLAR.search(ln)), 0)
                line = offset + (token.map[0] if token.map else 0) + index + 1
                found.append((line, lines[index].strip()[:100]))
    return found


def traps_in_file(path: Path, md=None) -> list[Trap]:
    md = md or _parser()
    path = Path(path)
    rel = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else str(path)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return [Trap(rel, index, line, text)
                for index, cell in enumerate(cells) if cell["cell_type"] == "markdown"
                for line, text in traps_in_markdown("".join(cell["source"]), md)]
    return [Trap(rel, None, line, text) for line, text in traps_in_markdown(path.read_text(encoding="utf-8"), md)]


def book_sources() -> list[Path]:
    return sorted([*(ROOT / "book").glob("*.ipynb"), *(ROOT / "book").glob("*.md")])


def main(argv=None) -> int:
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])] or book_sources()
    md = _parser()
    traps = [trap for path in paths for trap in traps_in_file(path, md)]
    for trap in traps:
        print(trap)
    print(f"{len(traps)} math traps in {len(paths)} files")
    return 1 if traps else 0


if __name__ == "__main__":
    sys.exit(main())
