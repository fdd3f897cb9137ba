"""Convert gated solutions to the withholdable pattern (one-off migration tool for chapter notebooks).

Usage: ``python tools/convert_gated_solutions.py book/NN_name.ipynb [...]``

sphinx-exercise cannot build a book with ``hide_solutions: true`` when a chapter uses the gated form
``{solution-start}`` ... code cells ... ``{solution-end}``. This tool rewrites every gated solution as

1. a ``{solution}`` block (``:class: dropdown``) holding all of the solution's prose, followed by
2. the solution's code cells, tagged ``solution`` and ``hide-input``.

It then tags ``solution`` every later code cell that reads a name a solution cell assigned (these are the
hidden checks of a solution's claims, which must go when the solution goes); such a cell must be tagged
``remove-cell``, otherwise the tool stops and names it, because visible code that depends on a solution has
to be rewritten by hand. A line printing the chapter's execution time is split off into its own hidden
cell so that it survives. Run ``python tools/clean_notebooks.py`` and ``pytest tests/test_book_structure.py``
afterwards, read the converted prose once (it may say "below" where the code now follows the box), and run
the chapter.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import clean_notebooks  # noqa: E402

START = re.compile(r"^(`{3,})\{solution-start\}\s*(\S+)\s*\n(:class: dropdown\s*\n)?\1\s*$", re.M)
END = re.compile(r"^(`{3,})\{solution-end\}\s*\n\1\s*$", re.M)
NOTE = {1: "The code of this solution follows (it is withheld together with this box).",
        2: "The code of this solution is in the cells that follow (they are withheld together with this box)."}


def _src(cell):
    return "".join(cell["source"])


def _markdown(text, key):
    return {"cell_type": "markdown", "id": hashlib.sha1(key.encode()).hexdigest()[:8], "metadata": {},
            "source": text.splitlines(keepends=True)}


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def _names(source):
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    stored, loaded = set(), set()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored.update((a.asname or a.name).split(".")[0] for a in node.names)
    return stored, loaded


def convert_cells(cells, name):
    """Return the cells with every gated solution rewritten (repeats until none is left)."""
    work = list(cells)
    changed = True
    while changed:
        changed, out, i = False, [], 0
        while i < len(work):
            cell = work[i]
            match = START.search(_src(cell)) if cell["cell_type"] == "markdown" else None
            if not match:
                out.append(cell)
                i += 1
                continue
            changed = True
            label, text = match.group(2), _src(cell)
            before, prose, codes, after, j = text[:match.start()].rstrip(), [text[match.end():].strip()], [], "", i + 1
            while True:
                if j >= len(work):
                    raise SystemExit(f"{name}: solution-start {label} without solution-end")
                nxt = work[j]
                if nxt["cell_type"] == "markdown":
                    end = END.search(_src(nxt))
                    if end:
                        prose.append(_src(nxt)[:end.start()].strip())
                        after = _src(nxt)[end.end():].strip()
                        break
                    prose.append(_src(nxt).strip())
                else:
                    code = copy.deepcopy(nxt)
                    code.setdefault("metadata", {})["tags"] = _tags(nxt) + [t for t in ("solution", "hide-input")
                                                                             if t not in _tags(nxt)]
                    codes.append(code)
                j += 1
            body = "\n\n".join(p for p in prose if p)
            fence = "````" if "```" in body else "```"
            note = NOTE[min(len(codes), 2)] if codes else ""
            block = f"{fence}{{solution}} {label}\n:class: dropdown\n\n{body}\n\n{note}".rstrip() + f"\n{fence}\n"
            if before:
                out.append(_markdown(before + "\n", f"{name}-{label}-before"))
            out.append(_markdown(block, f"{name}-{label}-solution"))
            out.extend(codes)
            if after:
                out.append(_markdown(after + "\n", f"{name}-{label}-after"))
            out.extend(work[j + 1:])
            work = out
            break
        else:
            work = out
    # Later cells that read what a solution cell assigned belong to the solution.
    result, assigned = [], set()
    for cell in work:
        if cell["cell_type"] != "code":
            result.append(cell)
            continue
        stored, loaded = _names(_src(cell))
        if "solution" in _tags(cell):
            assigned |= stored
        elif loaded & assigned:
            if "remove-cell" not in _tags(cell):
                raise SystemExit(f"{name}: a visible cell reads {sorted(loaded & assigned)} from a solution; "
                                 "rewrite it by hand")
            lines = _src(cell).splitlines(keepends=True)
            timing = [ln for ln in lines if "chapter executed in" in ln]
            cell = copy.deepcopy(cell)
            cell["source"] = [ln for ln in lines if "chapter executed in" not in ln]
            cell["metadata"]["tags"] = _tags(cell) + ["solution"]
            result.append(cell)
            if timing:
                t = copy.deepcopy(cell)
                t["source"], t["metadata"]["tags"] = [timing[0].rstrip("\n")], ["remove-cell"]
                t["id"] = hashlib.sha1((name + "timing").encode()).hexdigest()[:8]
                result.append(t)
            continue
        result.append(cell)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["cells"] = convert_cells(nb["cells"], path.name)
        path.write_text(clean_notebooks.dumps(clean_notebooks.clean(nb)), encoding="utf-8")
        print(f"converted {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
