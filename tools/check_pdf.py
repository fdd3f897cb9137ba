"""Check the PDF of the book: page count and every chapter title of ``_toc.yml``.

Usage: ``python tools/check_pdf.py _build/latex/tabular-trees.pdf [--min-pages N]``.

Reads the title (the first ``# `` heading) of every file listed in ``_toc.yml``, extracts the PDF's text with
``pdftotext`` and its page count with ``pdfinfo`` (both from poppler-utils), prints the page count, and exits
with status 1 when a title is missing or the PDF has fewer than ``--min-pages`` pages.
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
    return 1 if missing or pages < args.min_pages else 0


if __name__ == "__main__":
    sys.exit(main())
