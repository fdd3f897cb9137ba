"""Strip outputs, execution counts and volatile metadata from the chapter notebooks.

Usage: ``python tools/clean_notebooks.py [NOTEBOOK ...]`` (default: every ``book/*.ipynb``).
With ``--check`` nothing is written and the exit code is 1 if any notebook is not clean.
Idempotent: running it twice changes nothing the second time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEEP_NOTEBOOK_METADATA = {"kernelspec", "language_info"}
KEEP_CELL_METADATA = {"tags", "mystnb"}  # mystnb: figure captions, names and alt text


def clean(nb: dict) -> dict:
    """Return a cleaned copy of a notebook given as a JSON dict."""
    out = dict(nb)
    meta = {k: v for k, v in nb.get("metadata", {}).items() if k in KEEP_NOTEBOOK_METADATA}
    if "language_info" in meta:
        meta["language_info"] = {"name": meta["language_info"].get("name", "python")}
    out["metadata"] = meta
    cells = []
    for cell in nb.get("cells", []):
        cell = dict(cell)
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in KEEP_CELL_METADATA}
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.pop("attachments", None) if not cell.get("attachments") else None
        cells.append(cell)
    out["cells"] = cells
    return out


def dumps(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if a notebook is not clean")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "book").glob("*.ipynb"))
    dirty = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        cleaned = dumps(clean(json.loads(text)))
        if cleaned != text:
            dirty.append(path)
            if not args.check:
                path.write_text(cleaned, encoding="utf-8")
    for path in dirty:
        print(("not clean: " if args.check else "cleaned: ") + str(path))
    return 1 if (args.check and dirty) else 0


if __name__ == "__main__":
    sys.exit(main())
