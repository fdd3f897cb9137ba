"""Book structure that the instructor workflow relies on (no notebook is executed here).

- Solutions can be withheld: no gated ``{solution-start}``/``{solution-end}`` blocks (sphinx-exercise's
  ``hide_solutions`` crashes on them), and no cell outside a solution uses a name that only solution cells
  define, so deleting the cells tagged ``solution`` never breaks a later cell.
- Figures cannot disappear: the figure counter of ``tools/book_ext.py`` counts real figures and the build
  fails when a chapter page has fewer than its stored minimum.
- Every figure is numbered, captioned and described: a code cell that draws a figure draws one and carries
  MyST-NB ``mystnb.figure`` (caption, unique ``fig-chN-...`` name) and ``mystnb.image.alt`` metadata.
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
# The chapters (book/01-10); book/11 is a reference page.
CHAPTERS = [p for p in NOTEBOOKS if p.name[:2].isdigit() and 1 <= int(p.name[:2]) <= 10]
CONVERTED = CHAPTERS
# Chapters written with graded, self-checked exercises (tabular_trees.exercises).
SELF_CHECKED = CHAPTERS
# Each research chapter's "Reproduction notes" page (Reference part): the authors' code, protocol details,
# machine limits and test tolerances behind the chapter. Its figures keep the chapter's number (fig-chN-...).
REPRODUCTION_NOTES = {
    "08_tree_ntk": "12_ntk_reproduction_notes",
    "09_decision_tree_embedding": "13_dte_reproduction_notes",
    "10_bayesian_trees": "14_bayes_reproduction_notes",
}
NOTES_CHAPTER = {notes: int(chapter[:2]) for chapter, notes in REPRODUCTION_NOTES.items()}
CHECK_CALL = re.compile(r'^check\("(?P<id>\d+\.\d+)", (?P<name>answer_\w+)\)$')
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
        check = CHECK_CALL.match("".join(cell["source"]).strip())
        if check:  # the student copy assigns this name itself (`answer_5_3 = ...`) before the self-check
            loaded = loaded - {check["name"]}
        if "remove-cell" in _tags(cell) and re.fullmatch(r"assert check\(.*\)\.verdict == \"right\"",
                                                         "".join(cell["source"]).strip()):
            continue  # the solution passes its own self-check; hidden cells are not in student copies
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


# A code cell draws a figure when it shows one or creates one (with ``%matplotlib inline`` a created figure is
# displayed at the end of the cell even without ``plt.show()``).
_SHOW = re.compile(r"\bplt\.show\(\)")
_CREATE = re.compile(r"\bplt\.(?:subplots|figure|subplot_mosaic)\(")


def _figure_problems(name, cells):
    """Problems with the MyST-NB figure metadata of one chapter (an empty list when every figure is complete).

    Every figure-drawing code cell draws exactly one figure and carries ``mystnb.figure.caption`` (a sentence
    or more), a ``mystnb.figure.name`` of the form ``fig-chN-words`` that is unique in the chapter, and
    ``mystnb.image.alt`` that describes the picture (several words, not a file name).
    """
    chapter = NOTES_CHAPTER.get(Path(name).stem, int(name[:2]))
    problems, names = [], set()
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        n_figures = max(len(_SHOW.findall(source)), len(_CREATE.findall(source)))
        if not n_figures:
            continue
        where = f"{name}: code cell {i}"
        if n_figures > 1:
            problems.append(f"{where} draws {n_figures} figures; one caption fits one figure, so split the cell")
        # MyST-NB wraps *every* rich output of a cell with figure metadata in a figure of the same name, so a
        # table or value displayed next to the figure becomes a second figure (and a duplicate label).
        tree = _python(source)
        last = tree.body[-1] if tree is not None and tree.body else None
        shows_value = isinstance(last, ast.Expr) and not (
            isinstance(last.value, ast.Call) and ast.unparse(last.value.func) in {"print", "plt.show", "fig.show"})
        if shows_value or re.search(r"\bdisplay\(", source):
            problems.append(f"{where} displays a table or value besides its figure; move that to the next cell")
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        caption = mystnb.get("figure", {}).get("caption", "")
        fig_name = mystnb.get("figure", {}).get("name", "")
        alt = mystnb.get("image", {}).get("alt", "")
        if len(caption.split()) < 8:
            problems.append(f"{where}: mystnb.figure.caption should say in a sentence or two what the figure shows")
        if not re.fullmatch(rf"fig-ch{chapter}-[a-z0-9]+(?:-[a-z0-9]+)*", fig_name):
            problems.append(f"{where}: mystnb.figure.name {fig_name!r} should look like 'fig-ch{chapter}-what-it-shows'")
        elif fig_name in names:
            problems.append(f"{where}: mystnb.figure.name {fig_name!r} is used twice; names must be unique")
        names.add(fig_name)
        if len(alt.split()) < 8 or re.search(r"\.(?:png|svg|jpe?g|pdf)\b", alt, re.IGNORECASE):
            problems.append(f"{where}: mystnb.image.alt should describe the picture for a reader who cannot see it")
    return problems


def test_figure_rule_catches_missing_and_incomplete_metadata():
    meta = {"mystnb": {"figure": {"caption": "Two curves of test error against depth; the deeper tree overfits.",
                                  "name": "fig-ch9-depth"},
                       "image": {"alt": "A line plot with two curves: one falls, the other falls and then rises."}}}

    def cell(source, metadata):
        return {"cell_type": "code", "source": [source], "metadata": metadata}

    good = cell("fig, ax = plt.subplots()\nplt.show()", meta)
    assert _figure_problems("09_x.ipynb", [good, cell("print(1)", {})]) == []
    assert _figure_problems("09_x.ipynb", [cell("plt.show()", {})])                          # no metadata at all
    assert _figure_problems("09_x.ipynb", [cell("fig = plt.figure()", {})])                  # drawn without show
    assert _figure_problems("09_x.ipynb", [good, good])                                      # duplicate name
    assert _figure_problems("10_x.ipynb", [good])                                            # wrong chapter number
    two = cell("plt.figure()\nplt.show()\nplt.figure()\nplt.show()", meta)
    assert any("draws 2 figures" in p for p in _figure_problems("09_x.ipynb", [two]))
    assert _figure_problems("09_x.ipynb", [cell("plt.plot([1])\nplt.show()\ntable", meta)])     # table in the figure
    assert _figure_problems("09_x.ipynb", [cell("plt.plot([1])\nplt.show()\ndisplay(t)", meta)])
    assert _figure_problems("09_x.ipynb", [cell("plt.plot([1])\nplt.show()\nprint(t)", meta)]) == []   # text is fine
    path_alt = json.loads(json.dumps(meta))
    path_alt["mystnb"]["image"]["alt"] = "../_build/jupyter_execute/book/09_x_4_0.png shows the fitted tree curves"
    assert _figure_problems("09_x.ipynb", [cell("plt.show()", path_alt)])


def test_figure_minimums_do_not_exceed_the_figures_a_chapter_draws():
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        match = re.search(rf"book/{path.stem}:\s*(\d+)", config)
        if match is None:
            continue
        drawn = sum(1 for c in _cells(path) if c["cell_type"] == "code"
                    and (_SHOW.search("".join(c["source"])) or _CREATE.search("".join(c["source"]))))
        assert int(match.group(1)) <= drawn, f"{path.name}: figure minimum {match.group(1)} but only {drawn} figures"


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


def _exercises(path):
    """(label, level, id named in the text) of each {exercise} of a chapter, in order."""
    text = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
    found = []
    for block in re.findall(r"^```\{exercise\}.*?^```$", text, flags=re.S | re.M):
        label = re.search(r"^:label:\s*(\S+)", block, flags=re.M)
        level = re.search(r"^\*\*Level:\*\* (understand|apply|extend)\s*$", block, flags=re.M)
        named = re.search(r'check\("(\d+\.\d+)", answer_\w+\)', block)
        found.append((label and label.group(1), level and level.group(1), named and named.group(1)))
    return found


@pytest.mark.parametrize("path", SELF_CHECKED, ids=lambda p: p.name)
def test_chapter_has_goals_prerequisites_summary_and_six_graded_exercises(path):
    cells = _cells(path)
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for heading in ("## Learning goals", "## Prerequisites", "## Summary", "## Exercises"):
        assert re.search(rf"^{heading}\s*$", text, flags=re.M), f"{path.name} has no '{heading}' section"
    exercises = _exercises(path)
    assert len(exercises) >= 6, f"{path.name} has {len(exercises)} exercises; at least six are required"
    assert all(level for _, level, _ in exercises), f"{path.name}: every exercise needs a '**Level:** ...' line"
    assert {level for _, level, _ in exercises} == {"understand", "apply", "extend"}, path.name


@pytest.mark.parametrize("path", SELF_CHECKED, ids=lambda p: p.name)
def test_every_exercise_is_self_checked_under_its_own_number(path):
    from tabular_trees.exercises import exercise_ids

    chapter = int(path.name[:2])
    exercises = _exercises(path)
    expected = [f"{chapter}.{k}" for k in range(1, len(exercises) + 1)]
    assert [named for _, _, named in exercises] == expected, (
        f"{path.name}: exercise k must tell the student to run check(\"{chapter}.k\", answer_{chapter}_k)")
    calls = [m["id"] for c in _cells(path) if c["cell_type"] == "code" and "remove-cell" not in _tags(c)
             and (m := CHECK_CALL.match("".join(c["source"]).strip()))]
    assert calls == expected, f"{path.name}: one visible check cell per exercise, in order"
    assert exercise_ids(chapter=chapter) == expected, f"the library's checks for chapter {chapter} differ"


GLOSSARY_REQUIRED = ["NUTS", "dual averaging", "mass matrix", "reversible jump", "acceptance ratio", "Peskun ordering",
                     "nats", "kernel ridge", "NTK", "leaf embedding", "LDA", "SHAP value",
                     "interventional vs path-dependent"]


def _glossary_terms():
    text = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"^```\{glossary\}\n(.*?)^```$", text, flags=re.S | re.M).group(1)
    return {line.strip() for line in block.splitlines() if line and not line[0].isspace() and not line.startswith(":")}


def test_glossary_defines_the_course_terms_and_is_in_the_book():
    assert "file: book/glossary" in (ROOT / "_toc.yml").read_text(encoding="utf-8")
    missing = [t for t in GLOSSARY_REQUIRED if t not in _glossary_terms()]
    assert not missing, f"book/glossary.md does not define {missing}"


def test_every_glossary_link_names_a_defined_term():
    terms = _glossary_terms()
    linking = set()
    for path in NOTEBOOKS:
        text = "\n".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown")
        for body in re.findall(r"\{term\}`([^`]+)`", text):
            explicit = re.match(r"^.*?<(?P<term>[^>]+)>$", body)
            term = explicit["term"] if explicit else body
            assert term in terms, f"{path.name} links {{term}}`{body}`, which book/glossary.md does not define"
            linking.add(path.name)
    assert {p.name for p in NOTEBOOKS if p.name[:2] in {"05", "06", "07"}} <= linking


# Chapters whose first screen is clean: the first visible code cell holds imports and `use_book_style(...)` only.
# Chapters and their reproduction-notes pages open with imports and use_book_style() only.
CLEAN_FIRST_SCREEN = CHAPTERS + [ROOT / "book" / f"{n}.ipynb" for n in REPRODUCTION_NOTES.values()]


def _first_screen_problems(name, cells):
    first = next((c for c in cells if c["cell_type"] == "code" and "remove-cell" not in _tags(c)), None)
    if first is None:
        return [f"{name} has no visible code cell"]
    source = "".join(first["source"])
    if re.search(r"^\s*[%!]", source, flags=re.M):
        return [f"{name}: the first code cell uses a magic or shell escape; use_book_style() selects the backend"]
    tree = _python(source)
    problems, calls = [], 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func) == "use_book_style":
            calls += 1
            continue
        problems.append(f"{name}: the first code cell holds `{ast.unparse(node)[:60]}`; move set-up to the next cell")
    if calls != 1:
        problems.append(f"{name}: the first code cell must call use_book_style() once (it calls it {calls} times)")
    return problems


def test_first_screen_rule_catches_plumbing():
    code = lambda text: {"cell_type": "code", "metadata": {}, "source": [text]}  # noqa: E731
    good = "from tabular_trees.plotting import use_book_style\n\nuse_book_style()\nimport numpy as np\n"
    assert _first_screen_problems("x", [code(good)]) == []
    assert _first_screen_problems("x", [code("%matplotlib inline\n" + good)])
    assert _first_screen_problems("x", [code(good + "plt.rcParams.update({})\n")])
    assert _first_screen_problems("x", [code("import numpy as np\n")])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapters_import_only_public_names(path):
    for i, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "code":
            continue
        tree = _python("".join(cell["source"]))
        for node in ast.walk(tree) if tree is not None else []:
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                parts = name.split(".")
                assert not (parts[0] == "tabular_trees" and any(p.startswith("_") for p in parts[1:])), (
                    f"{path.name}: code cell {i} imports the private {name}; chapters use the public API only")


def test_pdf_structure_check_accepts_parts_and_chapters_and_refuses_the_flattened_contents(tmp_path):
    """tools/check_pdf.py reads the LaTeX contents file: parts of _toc.yml as parts, their pages as chapters."""
    import check_pdf

    parts = [("Foundations", ["Bias–variance and decision trees", "Boosting"]), ("Reference", ["Glossary"])]
    good = tmp_path / "good.toc"
    good.write_text(
        "\\contentsline {chapter}{Tree ensembles for tabular learning}{1}{chapter*.2}%\n"
        "\\contentsline {part}{I\\hspace {1em}Foundations}{3}{part.1}%\n"
        "\\contentsline {chapter}{\\numberline {1}Bias\\T1\\textendash variance and decision trees}{5}{chapter.1}%\n"
        "\\contentsline {section}{\\numberline {1.1}A section}{6}{section.1.1}%\n"
        "\\contentsline {chapter}{\\numberline {2}Boosting}{9}{chapter.2}%\n"
        "\\contentsline {part}{II\\hspace {1em}Reference}{20}{part.2}%\n"
        "\\contentsline {chapter}{\\numberline {3}Glossary}{21}{chapter.3}%\n", encoding="utf-8")
    flat = tmp_path / "flat.toc"   # what the PDF had before: chapters as sections of the intro's last heading
    flat.write_text(
        "\\contentsline {chapter}{\\numberline {2}How to read it}{3}{chapter.2}%\n"
        "\\contentsline {section}{\\numberline {2.1}Bias\\T1\\textendash variance and decision trees}{5}{section.2.1}%\n"
        "\\contentsline {section}{\\numberline {2.2}Boosting}{9}{section.2.2}%\n"
        "\\contentsline {section}{\\numberline {2.3}Glossary}{21}{section.2.3}%\n", encoding="utf-8")
    assert check_pdf.structure_problems(check_pdf.contents_lines(good), parts) == []
    problems = check_pdf.structure_problems(check_pdf.contents_lines(flat), parts)
    assert len(problems) == 2 and all("no part" in p for p in problems)
    misplaced = parts[:1] + [("Reference", ["Glossary", "Boosting"])]
    assert check_pdf.structure_problems(check_pdf.contents_lines(good), misplaced) == [
        "'Boosting' is not a chapter of the part 'Reference' in the contents"]
    assert [caption for caption, _ in check_pdf.toc_parts()] == ["Foundations", "Research frontiers", "Reference"]


def _toc_parts():
    """``{caption: [file, ...]}`` of ``_toc.yml``."""
    parts, caption = {}, None
    for line in (ROOT / "_toc.yml").read_text(encoding="utf-8").splitlines():
        if m := re.match(r"\s*- caption:\s*(.+)", line):
            caption = m.group(1).strip()
            parts[caption] = []
        elif (m := re.match(r"\s*- file:\s*(\S+)", line)) and caption:
            parts[caption].append(m.group(1))
    return parts


@pytest.mark.parametrize("chapter", sorted(REPRODUCTION_NOTES))
def test_research_chapter_links_its_reproduction_notes_page(chapter):
    """The notes page exists, sits in the Reference part, and chapter and notes link each other."""
    notes = REPRODUCTION_NOTES[chapter]
    path = ROOT / "book" / f"{notes}.ipynb"
    assert path.is_file(), f"{notes}.ipynb is missing"
    assert f"book/{notes}" in _toc_parts()["Reference"], f"{notes} must be listed in the Reference part of _toc.yml"
    chapter_text = "".join("".join(c["source"]) for c in _cells(ROOT / "book" / f"{chapter}.ipynb")
                           if c["cell_type"] == "markdown")
    notes_cells = _cells(path)
    notes_text = "".join("".join(c["source"]) for c in notes_cells if c["cell_type"] == "markdown")
    assert re.search(rf"\{{doc\}}`[^`]*{notes}>?`", chapter_text), f"{chapter} does not link {notes}"
    assert re.search(rf"\{{doc\}}`[^`]*{chapter}>?`", notes_text), f"{notes} does not link back to {chapter}"
    assert "".join(notes_cells[0]["source"]).startswith("# Reproduction notes"), notes
    assert any("remove-cell" in _tags(c) and "assert" in "".join(c["source"]) for c in notes_cells), (
        f"{notes} has no hidden check")


# Rules every page of a set must satisfy: each figure has a name, a caption and alt text (every notebook); the
# first visible code cell holds imports and the book style only (chapters and reproduction notes).
PAGE_RULES = {"figures": (_figure_problems, NOTEBOOKS), "first_screen": (_first_screen_problems, CLEAN_FIRST_SCREEN)}


@pytest.mark.parametrize("rule, path", [(rule, path) for rule, (_, paths) in PAGE_RULES.items() for path in paths],
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_page_follows_rule(rule, path):
    problems = PAGE_RULES[rule][0](path.name, _cells(path))
    assert not problems, "\n".join(problems)


# --- Answers out of sight, unique ids, math that Markdown does not break (tools/book_ext.py, tools/math_traps.py)

from docutils import nodes  # noqa: E402
from sphinx_exercise.nodes import solution_node  # noqa: E402

import math_traps  # noqa: E402


def _cell(source, *tags, output="out"):
    cell = nodes.container(nb_element="cell_code", classes=["cell", *(f"tag_{t}" for t in tags)])
    if "hide-input" in tags:
        cell["hide_mode"] = "input"
    cell += nodes.container("", nodes.literal_block(source, source), nb_element="cell_code_source")
    if output is not None:
        cell += nodes.container("", nodes.literal_block(output, output), nb_element="cell_code_output")
    return cell


def _exercise_page():
    section = nodes.section(ids=["exercises"])
    solution = solution_node(ids=["ch6-sol-1"])
    solution += nodes.title("", "Solution")
    solution += nodes.section("", nodes.paragraph("", "The prevalence."), ids=["solution-content"])
    section += [
        nodes.paragraph("", "Exercise 6.1"),
        solution,
        _cell("answer_6_1 = 0.136\nprint(answer_6_1)", "solution", "hide-input", output="0.136"),
        _cell('check("6.1", answer_6_1)', output="✓ Exercise 6.1: right."),
        _cell("# Hidden checks of the text.\nassert True", output=None),
        nodes.paragraph("", "Exercise 6.2"),
        _cell('check("6.2", answer_6_2)', output="✓ Exercise 6.2: right."),  # follows no solution box
    ]
    doc = nodes.document(None, None)
    doc += section
    return doc, solution


def _outputs(node):
    return [n.astext() for n in node.findall(nodes.container) if n.get("nb_element") == "cell_code_output"]


def test_with_solutions_the_answer_and_its_verdict_sit_inside_the_collapsed_solution():
    doc, solution = _exercise_page()
    book_ext.place_answers(doc, hide_solutions=False)
    inside = solution.children[-1]
    assert _outputs(inside) == ["0.136", "✓ Exercise 6.1: right."]
    moved = [c for c in inside.children if book_ext._is_code_cell(c)]
    assert all("hide_mode" not in c and "tag_hide-input" not in c["classes"] for c in moved)  # the box is the toggle
    top = [c for c in doc.children[0].children if book_ext._is_code_cell(c)]
    assert [book_ext.cell_source(c) for c in top] == ['check("6.2", answer_6_2)'] and _outputs(top[0]) == []
    assert "Hidden checks" not in doc.astext()


def test_without_solutions_no_answer_no_verdict_and_no_hidden_check_is_left():
    doc, _ = _exercise_page()
    book_ext.place_answers(doc, hide_solutions=True)
    text = doc.astext()
    assert "0.136" not in text and "right" not in text and "Hidden checks" not in text
    assert 'check("6.1", answer_6_1)' in text  # the reader's own check stays


def test_verdict_and_hidden_check_cells_are_recognised():
    assert book_ext.is_verdict_cell('check("6.1", answer_6_1)')
    assert book_ext.is_verdict_cell("  check('10.2', answer_10_2)\n")
    assert not book_ext.is_verdict_cell('assert check("6.1", answer_6_1).verdict == "right"')
    assert book_ext.is_hidden_check_cell("# Hidden checks: the root split moves\nassert 1")
    assert not book_ext.is_hidden_check_cell("x = 1  # hidden checks follow")


def test_box_bodies_get_ids_of_their_own():
    doc, _ = _exercise_page()
    section = doc.children[0]
    for k in range(2):
        box = solution_node(ids=[f"ch6-sol-{k + 2}"])
        box += nodes.section(ids=["solution-content"])
        section += box
    section += nodes.paragraph(ids=["proof"])
    section += nodes.paragraph(ids=["proof"])
    book_ext.unique_ids(doc)
    ids = [i for n in doc.findall(nodes.Element) for i in n.get("ids", [])]
    assert len(ids) == len(set(ids))
    assert {"ch6-sol-2-content", "ch6-sol-3-content", "proof", "proof-2"} <= set(ids)
    assert all("solution-content" in n["classes"] for n in doc.findall(nodes.section) if "-content" in n["ids"][0])


def test_math_trap_scanner_finds_formulas_that_markdown_breaks():
    assert math_traps.traps_in_markdown("gives $a\n+ b$ and more\n")  # a list item inside inline math
    assert math_traps.traps_in_markdown("text\n$$\na\n- b\n$$\n")  # $$ right after text is inline
    assert math_traps.traps_in_markdown("```{prf:proof}\n:label: p\nso $a\n1. b$\n```\n")  # inside a directive
    assert not math_traps.traps_in_markdown("text\n\n$$\na\n+ b\n$$\n")  # a display block keeps its lines
    assert not math_traps.traps_in_markdown("cost \\$5, `$x` and $a +\nb$\n")


@pytest.mark.parametrize("path", math_traps.book_sources(), ids=lambda p: p.name)
def test_no_markdown_breaks_a_formula(path):
    traps = math_traps.traps_in_file(path)
    assert not traps, "formulas cut by Markdown (see tools/math_traps.py for the fix):\n" + "\n".join(map(str, traps))


_INTERACTIVE = re.compile(r"^```\{interactive-figure\}\n:name: (fig-ch(\d+)-[a-z0-9]+(?:-[a-z0-9]+)*)\n"
                          r"(?::print: ([^\n]+)\n)?\n(.+?)\n```", re.S)
_WEB_WORDS = re.compile(r"slider|button|drag|click|hover|move the|expand", re.I)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if "interactive_html(" in p.read_text(encoding="utf-8")],
                         ids=lambda p: p.name)
def test_interactive_figures_are_numbered_and_captioned(path):
    """A cell that shows an interactive (Plotly) figure is followed by an ``{interactive-figure}`` cell that
    numbers and captions its output (tools/book_ext.py), as mystnb.figure does for a static figure, with a
    ``:print:`` caption for the PDF, which shows the figure's starting position."""
    cells = _cells(path)
    chapter = NOTES_CHAPTER.get(path.stem, int(path.name[:2]))
    shown = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "remove-cell" not in _tags(c)
             and re.search(r"^\w+ = interactive_html\(", "".join(c["source"]), re.M)]
    assert shown, f"{path.name}: no cell shows its interactive figure"
    for i in shown:
        following = "".join(cells[i + 1]["source"]) if i + 1 < len(cells) else ""
        match = _INTERACTIVE.match(following)
        assert match and cells[i + 1]["cell_type"] == "markdown", (
            f"{path.name}: code cell {i} shows an interactive figure; the next cell must be an "
            "```{interactive-figure} block with :name: fig-chN-... and a caption")
        assert int(match[2]) == chapter and len(match[4].split()) >= 8, match[0]
        # the PDF prints the starting position: its caption (:print:) does not ask the reader to move a slider
        assert match[3] and len(match[3].split()) >= 8 and not _WEB_WORDS.search(match[3]), (
            f"{path.name}: {match[1]} needs a :print: caption for the PDF without slider or button words")


def test_page_fixes_name_toggles_and_empty_header_cells():
    body = ('<details class="admonition hide above-input"><summary aria-label="Toggle hidden content">'
            '<p class="collapsed admonition-title">Show code cell source</p></summary></details>'
            '<table><thead><tr><th></th><th>RMSE</th></tr><tr><th class="blank level0" >&nbsp;</th></tr></thead></table>')
    fixed = book_ext.fix_page_html(body)
    assert "aria-label" not in fixed and "<summary>" in fixed
    assert fixed.count('<span class="visually-hidden">row label</span></th>') == 2 and "<th>RMSE</th>" in fixed
    cited = book_ext.fix_page_html('<div role="list" class="citation-list">'
                                   '<div class="citation" id="id10" role="doc-biblioentry">Breiman</div></div>')
    assert 'role="listitem"' in cited and "doc-biblioentry" not in cited


# --- Print layout (tools/book_ext.py): wide output tables turned on their side, links to left-out pages ---

def _docutils_table(rows):
    from docutils import nodes

    table, group = nodes.table(), nodes.tgroup(cols=len(rows[0]))
    group += [nodes.colspec(colwidth=1) for _ in rows[0]]
    head, body = nodes.thead(), nodes.tbody()
    head += nodes.row("", *[nodes.entry("", nodes.paragraph(text=str(c))) for c in rows[0]])
    for row in rows[1:]:
        body += nodes.row("", *[nodes.entry("", nodes.paragraph(text=str(c))) for c in row])
    group += [head, body]
    table += group
    return table


def _table_rows(table):
    return [[entry.astext() for entry in row] for row in table.findall(lambda n: n.tagname == "row")]


def test_a_wide_short_output_table_is_turned_on_its_side_and_others_are_not():
    wide = [["model"] + [f"c{i}" for i in range(12)], ["forest"] + [str(i) for i in range(12)]]
    table = _docutils_table(wide)
    assert book_ext.transpose_table(table)
    rows = _table_rows(table)
    assert rows[0] == ["model", "forest"] and rows[1] == ["c0", "0"] and len(rows) == 13
    square = [["a"] + [f"c{i}" for i in range(9)]] + [[str(r)] * 10 for r in range(10)]
    assert not book_ext.transpose_table(_docutils_table(square))  # as many rows as columns: kept
    narrow = [["a", "b", "c"], ["1", "2", "3"]]
    assert not book_ext.transpose_table(_docutils_table(narrow))


def test_a_link_to_a_page_the_edition_leaves_out_names_its_title():
    sources = {"book/instructors": "(instructors)=\n# For instructors\n\nText.",
               "book/14_bayes_reproduction_notes": "# Reproduction notes\n\n(bayes-notes-cost)=\n## The cost of NUTS\n"}
    assert book_ext.left_out_title(sources, "book/instructors", "doc") == "For instructors"
    assert book_ext.left_out_title(sources, "bayes-notes-cost", "ref") == "The cost of NUTS"
    assert book_ext.left_out_title(sources, "book/01_bias_variance_trees", "doc") is None
    assert book_ext.left_out_title(sources, "fig-ch1-three-trees", "ref") is None


def test_an_output_table_wraps_only_its_long_columns():
    settings = "(alpha, beta) by split: (0.95, 1.0), (0.5, 2.0)"
    table = _docutils_table([["model", "settings", "rmse"], ["forest", settings, "0.1"]])
    assert book_ext.fit_colspec(table) == "{|l|p{15.6em}|l|}\n"
    assert book_ext.fit_colspec(_docutils_table([["a", "b"], ["1", "2"]]), "") == "{ll}\n"
    three = _docutils_table([["a", "b", "c"], [settings] * 3])
    assert book_ext.fit_colspec(three, "") == "{p{10.4em}p{10.4em}p{10.4em}}\n"
    # a column is never narrower than its longest word, which cannot break
    names = _docutils_table([["run", "n"], ["rjhmc_long_random_walk_splits and more words here", "1"]])
    assert book_ext.fit_colspec(names, "") == "{p{16.0em}l}\n"


def test_headings_without_a_level_get_one():
    sidebar = ('<p class="caption" role="heading"><span class="caption-text">Foundations</span></p>'
               '<div role="heading" aria-level="3">kept</div><p role="heading" class="caption">x</p>'
               '<h5 aria-level="4" role="heading">kept too</h5>')
    fixed = book_ext.heading_levels(sidebar)
    assert fixed.count('aria-level="2"') == 2 and fixed.count('aria-level') == 4
    assert 'aria-level="3"' in fixed and '<h5 aria-level="4" role="heading">' in fixed
    assert '<p class="caption" role="heading" aria-level="2">' in fixed
    assert book_ext.heading_levels(fixed) == fixed
