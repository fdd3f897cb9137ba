"""Chapter 8's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

IDS = ["8.1", "8.2", "8.3", "8.4", "8.5", "8.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_8_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=8) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_8_1_is_two_maps():
    assert check("8.1", 2).verdict == "right"
    assert check("8.1", 3).verdict == "close"
    assert check("8.1", 1).verdict == "close"
    assert check("8.1", 0).verdict == "wrong"
    assert check("8.1", "two").verdict == "wrong"


def test_8_2_proportions():
    assert check("8.2", [0.5, 0.25, 0.25]).verdict == "right"
    assert check("8.2", [1 / 2, 1 / 4, 1 / 4]).verdict == "right"
    assert check("8.2", [0.5, 0.24, 0.26]).verdict == "close"
    assert check("8.2", [0.5, 0.125, 0.25]).verdict == "wrong"           # one leaf of the (0, 2, 1) path missed
    assert check("8.2", [0.5, 0.25]).verdict == "wrong"


def test_reference_values_are_plausible():
    assert _grader("8.1").value() == 2
    assert np.allclose(_grader("8.2").value(), [0.5, 0.25, 0.25]) and np.isclose(_grader("8.2").value().sum(), 1)
    assert 0 < _grader("8.3").value() < 20
    aaa, aai = _grader("8.4").value()
    assert 0 < aaa < aai < 1                       # the AAI kernels resemble each other more
    assert 50 < _grader("8.5").value() < 214        # better than predicting the mean hardness (sd ~ 214 HV)
    assert _grader("8.6").value() == 513


def test_typical_mistakes():
    aaa, aai = _grader("8.4").value()
    n = 129
    with_diagonal = [(a * n * (n - 1) + n) / n**2 for a in (aaa, aai)]   # averaging over r = s too
    assert check("8.4", with_diagonal).verdict == "close"
    assert check("8.4", [aai, aaa]).verdict == "wrong"                   # swapped
    assert check("8.6", 512).verdict == "close"                           # constant function forgotten
    assert check("8.6", 1 + 16 * 3 + 120 * 9).verdict == "wrong"          # non-centred functions
    eta = _grader("8.3").value()
    assert check("8.3", eta / 2).verdict == "wrong"                       # 1 - eta lambda / N < 0 instead of < -1
    assert check("8.3", eta / 10).verdict == "wrong"                      # the sum loss instead of the mean
