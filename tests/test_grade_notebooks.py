"""The batch grader (tools/grade_notebooks.py): one CSV row per submitted notebook, whatever the notebook does.

Small synthetic submissions, each graded in a fresh kernel: a correct, a wrong, an unanswered, an erroring and a
hanging notebook, and a file that is not a notebook. The exercise is a throw-away one registered inside each
notebook, so no chapter's reference is computed and the test stays fast.
"""

import csv
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import grade_notebooks  # noqa: E402

SETUP = '''from tabular_trees.exercises import check
from tabular_trees.exercises._core import numeric_exercise

@numeric_exercise("99.1", "apply", "twice two", expects="a number", rtol=1e-9, close_rtol=0.1,
                  hints={"99.1": ("keep more digits.", "multiply.")})
def _four():
    return 4.0

@numeric_exercise("99.2", "apply", "twice three", expects="a number", rtol=1e-9, close_rtol=0.1,
                  hints={"99.2": ("keep more digits.", "multiply.")})
def _six():
    return 6.0
'''


def _write(folder, name, *cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, folder / f"{name}.ipynb")


def test_grades_a_folder_into_a_csv(tmp_path):
    folder = tmp_path / "submissions"
    (folder / "group_b").mkdir(parents=True)
    _write(folder, "correct", 'answer_99_1 = 2 * 2\ncheck("99.1", answer_99_1)', 'check("99.2", 6)')
    _write(folder, "wrong", 'check("99.1", 5)', 'check("99.1", 3)', 'check("99.2", 6.1)')
    _write(folder, "unanswered", 'answer_99_1 = ...\ncheck("99.1", answer_99_1)')
    _write(folder / "group_b", "erroring", 'raise ValueError("a slip")', 'check("99.1", 4)')
    (folder / "not_a_notebook.ipynb").write_text("{ this is not json", encoding="utf-8")
    out = tmp_path / "grades.csv"

    # a limit no finishing notebook reaches, however loaded the machine (these take a few seconds each)
    rows = grade_notebooks.grade_folder(folder, out, timeout=600, executed=tmp_path / "executed",
                                        echo=lambda line: None)

    with open(out, newline="", encoding="utf-8") as handle:
        table = {row["student"]: row for row in csv.DictReader(handle)}
    assert len(rows) == len(table) == 5
    assert table["correct"]["status"] == "ok"
    assert (table["correct"]["99.1"], table["correct"]["99.2"], table["correct"]["right"]) == ("right", "right", "2")
    wrong = table["wrong"]
    assert (wrong["status"], wrong["99.1"], wrong["99.1 attempts"], wrong["99.2"]) == ("ok", "wrong", "2", "close")
    assert table["unanswered"]["99.1"] == "unanswered" and table["unanswered"]["99.2"] == "not run"
    erroring = table[str(Path("group_b") / "erroring")]
    assert erroring["status"] == "error" and "ValueError" in erroring["detail"] and erroring["99.1"] == "right"
    assert table["not_a_notebook"]["status"] == "unreadable" and table["not_a_notebook"]["99.1"] == "not run"
    # the executed copies keep their outputs, for reading the code behind a verdict
    executed = nbformat.read(tmp_path / "executed" / "group_b" / "erroring.ipynb", as_version=4)
    assert any(o.get("ename") == "ValueError" for o in executed.cells[1].outputs)


def test_a_hanging_notebook_is_stopped_and_keeps_its_verdicts(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    _write(folder, "correct", 'check("99.1", 4)', 'check("99.2", 6)')
    # The limit is set from how long a notebook that reaches the same point takes on this machine now (kernel start,
    # imports), so the hanging notebook always gets to its sleep and never to its last cell, on a fast or a loaded
    # machine alike; it sleeps far past the limit, however long the limit is.
    reach = grade_notebooks.run_notebook(folder / "correct.ipynb", timeout=600)[2]
    limit = int(3 * reach) + 5
    _write(folder, "hanging", 'check("99.1", 4)', f"import time\ntime.sleep({100 * limit})", 'check("99.2", 6)')

    rows = grade_notebooks.grade_folder(folder, tmp_path / "grades.csv", timeout=limit, echo=lambda line: None)

    hanging = {row["student"]: row for row in rows}["hanging"]
    assert hanging["status"] == "timeout" and hanging["99.1"] == "right" and hanging["99.2"] == "not run"
    assert float(hanging["seconds"]) < limit + 60


def test_the_command_line_refuses_a_missing_folder(tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade_notebooks.main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "g.csv")])
    assert "directory of submitted notebooks" in capsys.readouterr().err
