"""Reach: the course works for a user anywhere — honest metadata, the right install command, chapters that
need no file of the repository, and student copies generated from the chapters (tools/export_notebooks.py)."""

import importlib.util
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
MYST_MARKUP = re.compile(r"^\s*(`{3,}|:{3,})\{[\w:-]+\}|\{[\w:-]+\}`|^\([\w:-]+\)=\s*$", flags=re.M)


def _load_exporter():
    spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("export_notebooks", module)
    spec.loader.exec_module(module)
    return module


export_notebooks = _load_exporter()
STUDENT_CHAPTERS = [p for p in CHAPTERS if not p.stem.endswith(export_notebooks.NOTES_SUFFIX)]


def _source(cell):
    return "".join(cell["source"])


def _config_repository_url():
    return export_notebooks.repository_url()


# --------------------------------------------------------------------------------------------- metadata


def test_distribution_name_is_not_the_foreign_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # The index's "tabular-trees" (and its normalised spellings) is an unrelated project with the same
    # import name; ours must never resolve to it.
    assert re.sub(r"[-_.]+", "-", project["name"].lower()) != "tabular-trees"
    assert project["name"] == export_notebooks.DISTRIBUTION
    assert project["urls"]["Source"] == _config_repository_url()


def test_python_floor_is_what_the_extras_need():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"  # shap >= 0.50 (book/test extras) has no 3.10 release
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    assert not any(c.endswith(":: 3.10") for c in project["classifiers"])


def test_release_files_agree_with_the_version():
    import tabular_trees

    assert f"## [{tabular_trees.__version__}]" in (ROOT / "CHANGELOG.md").read_text()
    citation = (ROOT / "CITATION.cff").read_text()
    assert f"version: {tabular_trees.__version__}" in citation
    assert f'repository-code: "{_config_repository_url()}"' in citation


def test_no_install_command_points_at_the_foreign_package():
    offenders = []
    pattern = re.compile(r"pip install +[\"']?tabular[-_]trees(?![-_\w])")
    for path in [ROOT / "README.md", *(ROOT / "book").glob("*"), *(ROOT / "tabular_trees").rglob("*.py")]:
        if path.suffix in {".md", ".py", ".ipynb"}:
            offenders += [f"{path.name}: {m.group(0)}" for m in pattern.finditer(path.read_text(encoding="utf-8"))]
    assert not offenders, offenders
    readme = (ROOT / "README.md").read_text()
    assert f"{export_notebooks.DISTRIBUTION} @ git+{_config_repository_url()}" in readme


def test_chapters_read_no_repository_path():
    for path in CHAPTERS:
        code = "\n".join(_source(c) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
        assert "Path.cwd()" not in code and "benchmarks/results" not in code, path.name
        assert '"benchmarks"' not in code and "../" not in code, path.name


def test_recorded_runs_ship_with_the_package():
    from tabular_trees.datasets import load_recorded_run

    names = sorted(p.stem for p in (ROOT / "tabular_trees" / "_recorded").glob("*.json"))
    assert {"dte", "ntk", "rjhmc_paper", "rjhmc_long_table1"} <= set(names)
    run = load_recorded_run("rjhmc_paper")
    assert run["traces"]["table1/cgm/hmc-df/n_leaves"].shape[0] == run["protocol"]["n_chains"]
    with pytest.raises(ValueError, match="not a recorded run"):
        load_recorded_run("no_such_run")
    with pytest.raises(TypeError, match="name must be a str"):
        load_recorded_run(3)


# ------------------------------------------------------------------------------------------ the exporter


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("students")
    return {p.name: json.loads(p.read_text()) for p in export_notebooks.export(out)}


def test_every_chapter_is_exported(exported):
    """One student copy per chapter; the reproduction-notes pages (reference pages, no exercises) get none."""
    assert sorted(exported) == [p.name for p in STUDENT_CHAPTERS]


def test_copies_are_valid_notebooks_with_unique_cell_ids(exported):
    """nbformat 4.5 validation, with no MissingIDFieldWarning (a future nbformat error) for the cells the exporter
    writes itself."""
    import warnings

    import nbformat

    for name, nb in exported.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nbformat.validate(nbformat.from_dict(nb))
        ids = [cell["id"] for cell in nb["cells"]]
        assert len(ids) == len(set(ids)), name


def test_copies_are_plain_markdown_without_hidden_cells(exported):
    for name, nb in exported.items():
        for cell in nb["cells"]:
            assert "remove-cell" not in cell["metadata"].get("tags", []), name
            if cell["cell_type"] == "markdown":
                assert not MYST_MARKUP.search(_source(cell)), (name, _source(cell)[:200])
            else:
                assert cell["outputs"] == [] and cell["execution_count"] is None


def _solution_code(path):
    """Source of every solution code cell (gated, or tagged ``solution``) and hidden check of a chapter."""
    inside, hidden = False, []
    for cell in json.loads(path.read_text())["cells"]:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            if "{solution-start}" in text:
                inside = True
            if "{solution-end}" in text:
                inside = False
        elif inside or {"remove-cell", "solution"} & set(cell["metadata"].get("tags", [])):
            hidden.append(text.strip())
    return [h for h in hidden if h]


def test_copies_contain_no_solution_and_no_hidden_check(exported):
    n_hidden = 0
    for path in STUDENT_CHAPTERS:
        code = [_source(c).strip() for c in exported[path.name]["cells"] if c["cell_type"] == "code"]
        for hidden in _solution_code(path):
            n_hidden += 1
            assert hidden not in code, (path.name, hidden[:120])
        n_exercises = sum(_source(c).count("{exercise}") for c in json.loads(path.read_text())["cells"])
        answers = sum(_source(c).count("**Your answer here.**") for c in exported[path.name]["cells"])
        assert answers >= n_exercises > 0, path.name
    assert n_hidden > 50  # the chapters do have hidden checks and solution code: the check is not vacuous


def test_install_cell_is_guarded_and_first(exported):
    for name, nb in exported.items():
        first_code = next(c for c in nb["cells"] if c["cell_type"] == "code")
        text = _source(first_code)
        compile(text, name, "exec")
        assert "find_spec(module) is None" in text and "release(have) < release(minimum)" in text, name
        # checked by distribution name, so the foreign `tabular_trees` does not count as installed
        assert f"DISTRIBUTION = {export_notebooks.DISTRIBUTION!r}" in text
        assert "importlib.metadata.version(DISTRIBUTION)" in text


def test_install_cell_is_a_no_op_in_the_course_environment(exported, monkeypatch):
    import importlib.metadata
    import subprocess

    calls = []
    monkeypatch.setattr(subprocess, "check_call", lambda *a, **k: calls.append(a))
    try:
        importlib.metadata.version(export_notebooks.DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the library is not installed under its distribution name here")
    for name, nb in exported.items():
        first_code = next(c for c in nb["cells"] if c["cell_type"] == "code")
        exec(_source(first_code), {})
    assert calls == []


def test_exporter_converts_myst_on_a_small_notebook(tmp_path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [
            "# Ch\n\nAs {cite}`breiman2001rf` shows, see {prf:ref}`ch9-thm-a`.\n\n",
            "```{prf:theorem} Big result\n:label: ch9-thm-a\n\nIt holds.\n```\n\n",
            "```{prf:proof}\nTrivial.\n```\n\n```{exercise}\n:label: ch9-ex-a\n\nDo it.\n```\n\n",
            "```{solution} ch9-ex-a\n:class: dropdown\n\nSECRET prose.\n```\n\nAfter {ref}`ch9-ex-b`.\n\n",
            "```{only} html\nMove the slider.\n```\n\n```{only} latex\nPrint shows the start.\n```\n"]},
        {"cell_type": "markdown", "metadata": {}, "source": [
            "```{exercise}\n:label: ch9-ex-b\n\nCode it.\n```\n\n```{solution-start} ch9-ex-b\n:class: dropdown\n```\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["secret = 42\n"]},
        {"cell_type": "markdown", "metadata": {}, "source": ["```{solution-end}\n```\n\nThe end."]},
        {"cell_type": "markdown", "metadata": {}, "source": [
            "```{exercise}\n:label: ch9-ex-c\n\nAgain.\n```\n\n```{solution} ch9-ex-c\n:class: dropdown\n\nHIDDEN.\n```\n"]},
        {"cell_type": "code", "metadata": {"tags": ["solution", "hide-input"]}, "outputs": [],
         "execution_count": None, "source": ["tagged_secret = 1\n"]},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "outputs": [], "execution_count": None,
         "source": ["assert True\n"]},
    ]
    path = tmp_path / "09_small.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    labels = export_notebooks.collect_labels([path])
    assert labels == {"ch9-thm-a": "Theorem 9.1", "ch9-ex-a": "Exercise 9.1", "ch9-ex-b": "Exercise 9.2",
                      "ch9-ex-c": "Exercise 9.3", "09_small": "Ch"}
    nb = export_notebooks.ChapterExporter(path, labels, export_notebooks.read_bibliography(),
                                          export_notebooks.book_requirements()).export()
    text = "\n".join(_source(c) for c in nb["cells"])
    assert "(Breiman, 2001)" in text and "see Theorem 9.1" in text and "After Exercise 9.2" in text
    assert "**Theorem 9.1 (Big result).**" in text and "*Proof.* Trivial. ∎" in text
    assert "SECRET" not in text and "secret = 42" not in text and "assert True" not in text
    assert "HIDDEN" not in text and "tagged_secret" not in text
    assert "Move the slider." in text and "Print shows" not in text  # a notebook reads as the web book
    assert "The end." in text and "## References" in text and "Breiman" in nb["cells"][-1]["source"][-1]
    kinds = [c["cell_type"] for c in nb["cells"]]
    assert kinds.count("code") == 3  # the install cell and one answer cell per solution with code


def test_exporter_turns_a_withheld_solution_before_a_self_check_into_an_answer_placeholder(tmp_path):
    code = lambda text, tags=(): {"cell_type": "code", "metadata": {"tags": list(tags)} if tags else {},  # noqa: E731
                                  "outputs": [], "execution_count": None, "source": [text]}
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [
            "# Ch\n\n```{exercise} Count\n:label: ch9-ex-a\n\n**Level:** apply\n\nCount them.\n```\n\n",
            "```{solution} ch9-ex-a\n:class: dropdown\n\nSECRET.\n```\n"]},
        code("answer_9_1 = 41 + 1\n", ("solution", "hide-input")),
        code('check("9.1", answer_9_1)\n'),
        code('assert check("9.1", answer_9_1).verdict == "right"\n', ("remove-cell",)),
    ]
    path = tmp_path / "09_checked.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    nb = export_notebooks.ChapterExporter(path, export_notebooks.collect_labels([path]),
                                          export_notebooks.read_bibliography(),
                                          export_notebooks.book_requirements()).export()
    code_cells = [_source(c) for c in nb["cells"] if c["cell_type"] == "code"][1:]  # after the install cell
    assert code_cells[0].startswith("answer_9_1 = ...") and code_cells[1] == 'check("9.1", answer_9_1)\n'
    assert len(code_cells) == 2 and "41 + 1" not in "".join(code_cells) and "SECRET" not in str(nb)
    namespace = {}
    exec(code_cells[0], namespace)
    assert namespace["answer_9_1"] is Ellipsis  # what check() reports as "no answer yet"


def test_exporter_refuses_markup_it_cannot_write(tmp_path):
    path = tmp_path / "09_bad.ipynb"
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["```{glossary}\nterm\n```\n"]}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    with pytest.raises(export_notebooks.ExportError, match="glossary"):
        export_notebooks.ChapterExporter(path, {}, {}, {}).export()
