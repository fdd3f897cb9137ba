"""Bad input to the Bayesian family gets a clear error naming the argument (issue 33's list)."""

import numpy as np
import pytest

from tabular_trees import bayes


@pytest.mark.parametrize("fn", [bayes.split_rhat, bayes.effective_sample_size])
def test_diagnostics_refuse_ragged_chains_by_name(fn):
    with pytest.raises(ValueError, match="x is ragged: every chain needs the same number of draws"):
        fn([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0]])


@pytest.fixture
def cgm_posterior():
    rng = np.random.default_rng(0)
    return bayes.CGMPosterior(rng.random((30, 2)), rng.random(30), "regression")


def test_cgm_log_posterior_checks_the_tree(cgm_posterior):
    with pytest.raises(ValueError, match=r"tree was built for 5 features but this posterior's X has 2; .*SoftTree\(2\)"):
        cgm_posterior.log_posterior(bayes.SoftTree(5).grow(0, 4, 0.5, None, 0.0))
    tree = bayes.SoftTree(2).grow(0, 1, 0.5, None, 0.0)
    tree.feature[0] = 99
    with pytest.raises(ValueError, match=r"split index 99 at node 0; split indices must lie in 0..1"):
        cgm_posterior.log_posterior(tree)
    with pytest.raises(TypeError, match=r"tree must be a SoftTree \(e.g. SoftTree\(2\)\), got str"):
        cgm_posterior.log_posterior("tree")
    # a valid tree still gives the same number as before the check
    ok = bayes.SoftTree(2).grow(0, 1, cgm_posterior.X[3, 1], None, 0.0)
    assert np.isfinite(cgm_posterior.log_posterior(ok))


def test_cgm_posterior_refuses_a_target_whose_variance_overflows():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"y's variance overflows .* rescale y"):
        bayes.CGMPosterior(rng.random((30, 2)), 1e200 * rng.random(30), "regression")
