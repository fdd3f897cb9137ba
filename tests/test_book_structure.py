"""Book structure that the instructor workflow relies on (no notebook is executed here).

- Solutions can be withheld: no gated ``{solution-start}``/``{solution-end}`` blocks (sphinx-exercise's
  ``hide_solutions`` crashes on them), and no cell outside a solution uses a name that only solution cells
  define, so deleting the cells tagged ``solution`` never breaks a later cell.
- Figures cannot disappear: the figure counter of ``tools/book_ext.py`` counts real figures and the build
  fails when a chapter page has fewer than its stored minimum.
"""

import ast
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
CONVERTED = [p for p in NOTEBOOKS if p.name[:2] in {"01", "02", "03", "04"}]
sys.path.insert(0, str(ROOT / "tools"))
import book_ext  # noqa: E402


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def _python(source):
    """Cell source without IPython magics, parsed by ``ast`` (None if it is not plain Python)."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _stored_and_loaded(tree):
    stored, loaded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                stored.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
    return stored, loaded


@pytest.mark.parametrize("path", CONVERTED, ids=lambda p: p.name)
def test_no_gated_solutions(path):
    text = "".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    assert "{solution-start}" not in text and "{solution-end}" not in text, (
        f"{path.name}: gated solutions break hide_solutions; write a {{solution}} block followed by code "
        "cells tagged 'solution' (see book/instructors.md)"
    )


@pytest.mark.parametrize("path", CONVERTED, ids=lambda p: p.name)
def test_removing_solutions_breaks_no_later_cell(path):
    # A cell outside the solutions must not read a name that an earlier solution cell assigned: with the
    # solutions removed it would be undefined, or silently hold an older value of the same name.
    cells = [c for c in _cells(path) if c["cell_type"] == "code"]
    solution_stored = set()
    for i, cell in enumerate(cells):
        tree = _python("".join(cell["source"]))
        assert tree is not None, f"{path.name}: cannot parse code cell {i}"
        stored, loaded = _stored_and_loaded(tree)
        if "solution" in _tags(cell):
            solution_stored |= stored
            continue
        used = sorted(loaded & solution_stored)
        assert not used, (
            f"{path.name}: code cell {i} (not tagged 'solution') reads {used}, assigned in an earlier solution "
            "cell; tag it 'solution' too or compute the names outside the solution"
        )


@pytest.mark.parametrize("path", CONVERTED, ids=lambda p: p.name)
def test_solution_cells_follow_a_solution_block(path):
    cells = _cells(path)
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code" and "solution" in _tags(cell):
            previous = [c for c in cells[:i] if c["cell_type"] == "markdown"][-1]
            text = "".join(previous["source"])
            assert re.search(r"\{solution\}", text) or "solution" in _tags(cells[i - 1]), (
                f"{path.name}: solution code cell {i} must follow a {{solution}} block"
            )


def test_count_figures_counts_copied_images_only():
    html = (
        '<img alt="logo" src="../_static/logo.png"/>'
        '<figure><img alt="Tree fits" src="../_images/abc.png"/></figure>'
        '<img src="_images/def.svg" alt="x">'
    )
    assert book_ext.count_figures(html) == 2
    assert book_ext.count_figures(html.replace('src="../_images/abc.png"', 'src="../_static/abc.png"')) == 1


def _fake_app(tmp_path, pages, minimums):
    outdir = tmp_path / "html"
    for docname, html in pages.items():
        page = outdir / (docname + ".html")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(html, encoding="utf-8")
    return SimpleNamespace(
        outdir=str(outdir),
        builder=SimpleNamespace(format="html", get_outfilename=lambda docname: str(outdir / (docname + ".html"))),
        config=SimpleNamespace(figure_minimums=minimums),
        env=SimpleNamespace(found_docs=set(pages)),
    )


def test_build_fails_when_a_chapter_loses_a_figure(tmp_path):
    two = '<img src="../_images/a.png"/><img src="../_images/b.png"/>'
    ok = _fake_app(tmp_path, {"book/ch": two}, {"book/ch": 2})
    book_ext._copy_plotly_and_check_figures(ok, None)  # passes
    assert (Path(ok.outdir) / "_static" / "plotly.min.js").is_file()
    lost = _fake_app(tmp_path, {"book/ch": '<img src="../_images/a.png"/>'}, {"book/ch": 2})
    with pytest.raises(Exception, match="book/ch: 1 figures, expected at least 2"):
        book_ext._copy_plotly_and_check_figures(lost, None)


def test_every_foundations_chapter_has_a_figure_minimum():
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    for path in CONVERTED:
        assert re.search(rf"book/{path.stem}:\s*\d+", config), f"_config.yml has no figure minimum for {path.stem}"


def test_convert_gated_solutions_makes_the_withholdable_pattern():
    import convert_gated_solutions as conv

    def md(text, i):
        return {"cell_type": "markdown", "id": f"m{i}", "metadata": {}, "source": [text]}

    def code(text, i, tags=()):
        return {"cell_type": "code", "id": f"c{i}", "metadata": {"tags": list(tags)} if tags else {},
                "source": [text], "outputs": [], "execution_count": None}

    cells = [
        md("```{exercise}\n:label: ex-a\n\nDo it.\n```\n\n```{solution-start} ex-a\n:class: dropdown\n```\n", 0),
        md("First we compute.", 1),
        code("answer = 41 + 1", 2),
        md("So the answer is 42.\n\n```{solution-end}\n```\n\nAfter the exercise.", 3),
        code("assert answer == 42\nprint(f\"chapter executed in {t:.0f} s\")", 4, ["remove-cell"]),
    ]
    out = conv.convert_cells(cells, "x.ipynb")
    text = "".join("".join(c["source"]) for c in out if c["cell_type"] == "markdown")
    assert "{solution-start}" not in text and "{solution-end}" not in text
    assert "```{solution} ex-a\n:class: dropdown" in text and "So the answer is 42." in text
    assert "After the exercise." in text and "```{exercise}" in text
    tagged = {"".join(c["source"]): _tags(c) for c in out if c["cell_type"] == "code"}
    assert tagged["answer = 41 + 1"] == ["solution", "hide-input"]
    assert tagged["assert answer == 42\n"] == ["remove-cell", "solution"]
    assert tagged['print(f"chapter executed in {t:.0f} s")'] == ["remove-cell"]
    # a visible cell that needs a solution's result cannot be converted automatically
    with pytest.raises(SystemExit, match="reads \\['answer'\\]"):
        conv.convert_cells(cells[:4] + [code("print(answer)", 5)], "x.ipynb")
