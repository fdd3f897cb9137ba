"""Chapter 8's self-check exercises: hand computations, typical slips and plausible reference values."""

import numpy as np
from _exercise_cases import assert_verdicts, reference


def test_8_1_is_two_maps_and_8_2_proportions():
    assert_verdicts("8.1", right=[2], close=[3, 1], wrong=[0, "two"])
    # one leaf of the (0, 2, 1) path missed, or a proportion left out, is wrong
    assert_verdicts("8.2", right=[[0.5, 0.25, 0.25], [1 / 2, 1 / 4, 1 / 4]], close=[[0.5, 0.24, 0.26]],
                    wrong=[[0.5, 0.125, 0.25], [0.5, 0.25]])


def test_reference_values_are_plausible():
    assert reference("8.1") == 2
    assert np.allclose(reference("8.2"), [0.5, 0.25, 0.25]) and np.isclose(reference("8.2").sum(), 1)
    assert 0 < reference("8.3") < 20
    aaa, aai = reference("8.4")
    assert 0 < aaa < aai < 1                       # the AAI kernels resemble each other more
    assert 50 < reference("8.5") < 214              # better than predicting the mean hardness (sd ~ 214 HV)
    assert reference("8.6") == 513


def test_typical_mistakes():
    aaa, aai = reference("8.4")
    n = 129
    with_diagonal = [(a * n * (n - 1) + n) / n**2 for a in (aaa, aai)]   # averaging over r = s too
    assert_verdicts("8.4", close=[with_diagonal], wrong=[[aai, aaa]])      # swapped is wrong
    # the constant function forgotten is close; non-centred functions are wrong
    assert_verdicts("8.6", close=[512], wrong=[1 + 16 * 3 + 120 * 9])
    eta = reference("8.3")
    # 1 - eta lambda / N < 0 instead of < -1, or the sum loss instead of the mean
    assert_verdicts("8.3", wrong=[eta / 2, eta / 10])
