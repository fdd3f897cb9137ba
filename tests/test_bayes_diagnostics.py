"""Split R-hat and effective sample size against closed forms."""

import numpy as np
import pytest

from tabular_trees.bayes import effective_sample_size, split_rhat


def ar1(rho, n_chains, n, seed):
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(n_chains, n))
    x = np.empty((n_chains, n))
    x[:, 0] = e[:, 0] / np.sqrt(1 - rho**2)  # start in the stationary distribution
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + e[:, t]
    return x


def test_iid_chains():
    x = np.random.default_rng(0).normal(size=(4, 2000))
    assert split_rhat(x) == pytest.approx(1.0, abs=0.01)
    # ESS of iid draws is n = 8000; its sampling sd is a few percent
    assert effective_sample_size(x) == pytest.approx(8000, rel=0.1)


@pytest.mark.parametrize("rho", [0.5, 0.9, 0.97])
def test_ar1_chains_have_the_closed_form_ess(rho):
    """ESS of a stationary AR(1) chain: n (1 − ρ)/(1 + ρ) (integrated autocorrelation time (1+ρ)/(1−ρ));
    the estimate's relative error is ~ sqrt(2 τ / n)-ish, so 15 % at these lengths."""
    x = ar1(rho, 4, 20000, seed=int(rho * 100))
    expected = x.size * (1 - rho) / (1 + rho)
    assert effective_sample_size(x) == pytest.approx(expected, rel=0.15)
    assert split_rhat(x) < 1.01


def test_rhat_flags_chains_that_disagree_or_drift():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 500))
    x[0] += 3.0  # one chain elsewhere
    assert split_rhat(x) > 1.1
    drift = np.linspace(0, 5, 1000)[None, :] + rng.normal(size=(1, 1000))  # a single drifting chain: halves disagree
    assert split_rhat(drift) > 1.1
    # by hand on a tiny case: halves (0, 0) and (1, 1) padded with noise-free values -> W = 0, B > 0
    assert split_rhat([0.0, 0.0, 1.0, 1.0]) == np.inf
    assert np.isnan(split_rhat(np.ones((2, 10))))


def test_split_rhat_equals_the_bda3_formula():
    x = np.random.default_rng(2).normal(size=(3, 11))
    halves = np.concatenate([x[:, :5], x[:, 6:]])  # odd middle draw dropped
    n = 5
    W = halves.var(axis=1, ddof=1).mean()
    B = n * halves.mean(axis=1).var(ddof=1)
    assert split_rhat(x) == pytest.approx(np.sqrt(((n - 1) / n * W + B / n) / W), rel=1e-12)


@pytest.mark.parametrize("bad, err", [
    (np.zeros((2, 3)), ValueError), ([[np.nan] * 10], ValueError), (np.zeros((2, 2, 10)), ValueError),
    (None, TypeError), ([["a"] * 10], TypeError), (np.zeros((0, 10)), ValueError),
])
def test_bad_input(bad, err):
    for f in (split_rhat, effective_sample_size):
        with pytest.raises(err):
            f(bad)
