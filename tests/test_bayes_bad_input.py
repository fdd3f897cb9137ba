"""Bad input to the Bayesian family gets a clear error naming the argument."""

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
    for bad in (np.nan, np.inf):  # a non-finite threshold has no density: an error, not -inf
        tree = bayes.SoftTree(2).grow(0, 1, 0.5, None, 0.0)
        tree.threshold[0] = bad
        with pytest.raises(ValueError, match=r"tree.threshold holds (nan|inf) at node 0: .*finite"):
            cgm_posterior.log_posterior(tree)
    # a valid tree still gives the same number as before the check
    ok = bayes.SoftTree(2).grow(0, 1, cgm_posterior.X[3, 1], None, 0.0)
    assert np.isfinite(cgm_posterior.log_posterior(ok))


def test_cgm_posterior_refuses_a_target_whose_variance_overflows():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"y's variance overflows .* rescale y"):
        bayes.CGMPosterior(rng.random((30, 2)), 1e200 * rng.random(30), "regression")


# ---- one seed rule (tabular_trees._validation.check_seed_value) and require_y, as everywhere else in the package
@pytest.mark.parametrize("Est", [bayes.BayesianTreeRegressor, bayes.BayesianTreeClassifier])
@pytest.mark.parametrize("bad, error", [(True, TypeError), ("0", TypeError), (1.5, TypeError),
                                        (np.random.default_rng(0), TypeError), (-1, ValueError),
                                        (2**32, ValueError)])
def test_estimators_follow_the_package_seed_rule(Est, bad, error):
    rng = np.random.default_rng(0)
    X, y = rng.random((20, 2)), np.arange(20) % 2
    with pytest.raises(error, match=r"random_state( ==.*)? must be"):
        Est(method="cgm", n_iter=4, n_burnin=2, random_state=bad).fit(X, y)


@pytest.mark.parametrize("Est", [bayes.BayesianTreeRegressor, bayes.BayesianTreeClassifier])
def test_estimators_refuse_a_missing_target_through_require_y(Est):
    with pytest.raises(ValueError, match=rf"{Est.__name__} requires y to be passed, but the target y is None"):
        Est(method="cgm", n_iter=4, n_burnin=2).fit(np.ones((5, 2)), None)


@pytest.mark.parametrize("chain", ["cgm_chain", "rjhmc_chain"])
def test_chain_seed_rule(chain):
    rng = np.random.default_rng(0)
    X = rng.random((25, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=25)
    post = (bayes.CGMPosterior(X, y, "regression") if chain == "cgm_chain"
            else bayes.TreePosterior(X, y, "regression", use_simplex=False))
    run = getattr(bayes, chain)
    kw = dict(n_iter=6, n_burnin=3)
    if chain == "rjhmc_chain":
        kw["sampler"] = bayes.RJHMCSettings(k_warmup=5)
    for bad, error in [(True, TypeError), (-1, ValueError), (2**32, ValueError), ("1", TypeError)]:
        with pytest.raises(error, match=r"seed( ==.*)?,? must be"):
            run(post, seed=bad, **kw)
    # an int seeds default_rng(int): the same chain as the Generator it stands for
    a = run(post, seed=3, **kw)
    b = run(post, seed=np.random.default_rng(3), **kw)
    assert np.array_equal(a.log_posterior, b.log_posterior) and np.array_equal(a.move, b.move)


def test_tree_posterior_refuses_a_theta_whose_density_is_not_a_float():
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    post = bayes.TreePosterior(X, X[:, 0] + 0.1 * rng.normal(size=30), "regression", use_simplex=False)
    tree = bayes.SoftTree(2).grow(0, 0, 0.5, None, 0.0)
    theta = post.pack(tree, 1.0)
    assert np.isfinite(post.log_posterior(tree, theta, 0.01))  # a theta from pack() is fine
    far = np.full_like(theta, 1e300)
    for call in (post.log_posterior, post.logp, lambda *a: post.logp_grad(*a)[0]):
        with pytest.raises(ValueError, match=r"log-density at this theta is not representable .* up to 1e\+300"):
            call(tree, far, 0.01)
    # what a sampler asks for: the -inf itself (such a proposal is rejected)
    assert post.log_posterior(tree, far, 0.01, on_overflow="return") == -np.inf
    with pytest.raises(ValueError, match="on_overflow"):
        post.logp(tree, theta, 0.01, on_overflow="ignore")
