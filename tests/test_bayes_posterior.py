"""Soft trees, log-posteriors, gradients and transforms of tabular_trees.bayes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln
from scipy.stats import invgamma, norm

from tabular_trees.bayes import (SoftTree, TreePosterior, TreePrior, log_tree_prior, predict_hard_tree,
                                 predict_soft_tree, soft_leaf_probabilities)
from tabular_trees.bayes._simplex import _stick_breaking, _stick_breaking_inverse, _stick_breaking_log_jacobian


def _tree(p, use_simplex, rng):
    s = lambda: rng.dirichlet(np.ones(p))  # noqa: E731
    t = SoftTree(p, use_simplex).grow(0, 1 % p, 0.45, s(), 0.7)
    t = t.grow(1, 0, 0.6, s(), -0.4)
    return t.grow(2, p - 1, 0.3, s(), 1.2)


def _data(task, n=40, p=3, M=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    y = rng.normal(size=n) if task == "regression" else rng.integers(0, M, n)
    return X, y


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("use_simplex", [False, True])
@pytest.mark.parametrize("jacobian", [True, False])
def test_gradient_matches_finite_differences(task, use_simplex, jacobian):
    X, y = _data(task)
    rng = np.random.default_rng(1)
    post = TreePosterior(X, y, task, use_simplex, n_classes=3)
    tree = _tree(3, use_simplex, rng)
    theta = post.pack(tree, sigma=0.8) + 0.2 * rng.normal(size=post.dim(tree))
    for h in (0.01, 0.05, 0.3):
        _, g = post.logp_grad(tree, theta, h, jacobian=jacobian)
        eps = 1e-6
        fd = np.array([(post.logp(tree, theta + eps * e, h, jacobian) - post.logp(tree, theta - eps * e, h, jacobian))
                       / (2 * eps) for e in np.eye(theta.shape[0])])
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


def test_regression_log_posterior_equals_scipy():
    X, y = _data("regression")
    rng = np.random.default_rng(2)
    tree = _tree(3, False, rng)
    prior = TreePrior(mu_loc=0.3, mu_scale=2.0, sigma_a=2.0, sigma_b=1.5)
    post = TreePosterior(X, y, "regression", False, prior=prior)
    sigma, h = 0.7, 0.1
    theta = post.pack(tree, sigma)
    pred = predict_soft_tree(tree, X, h)
    mu = tree.value[tree.leaves()]
    expected = (norm.logpdf(y, pred, sigma).sum() + norm.logpdf(mu, 0.3, 2.0).sum()
                + invgamma.logpdf(sigma, 2.0, scale=1.5) - 3 * np.log(3))
    assert post.logp(tree, theta, h, jacobian=False) == pytest.approx(expected, rel=1e-10)
    # with the Jacobian: + log τ(1-τ) per threshold + log σ
    tau = tree.threshold[tree.internal_nodes()]
    jac = np.sum(np.log(tau * (1 - tau))) + np.log(sigma)
    assert post.logp(tree, theta, h, jacobian=True) == pytest.approx(expected + jac, rel=1e-10)


def test_classification_likelihood_keeps_the_dirichlet_multinomial_constant():
    X, y = _data("classification", M=4)
    rng = np.random.default_rng(3)
    tree = _tree(3, False, rng)
    post = TreePosterior(X, y, "classification", False, n_classes=4, class_alpha=0.7)
    h = 0.2
    phi = soft_leaf_probabilities(tree, X, h)
    C = phi.T @ np.eye(4)[y]
    a = np.full(4, 0.7)
    expected = np.sum(gammaln(a.sum()) - gammaln(C.sum(1) + a.sum()) + np.sum(gammaln(C + a) - gammaln(a), axis=1))
    theta = post.pack(tree)
    ll = post.log_likelihood(tree, theta, h)
    assert ll == pytest.approx(expected, rel=1e-10)
    # hard limit: Dirichlet-multinomial of the integer counts
    hard = post.log_likelihood(tree, theta, 1e-9)
    leaf = np.argmax(soft_leaf_probabilities(tree, X, 1e-9), axis=1)
    cnt = np.array([np.bincount(y[leaf == k], minlength=4) for k in range(4)])
    exp_hard = np.sum(gammaln(2.8) - gammaln(cnt.sum(1) + 2.8) + np.sum(gammaln(cnt + 0.7) - gammaln(0.7), axis=1))
    assert hard == pytest.approx(exp_hard, rel=1e-9)


def test_duplicate_rows_are_merged_exactly():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(60, 2)).astype(float) / 2
    y = rng.normal(size=60)
    post = TreePosterior(X, y, "regression", True)
    assert post.X.shape[0] <= 9 and post.w.sum() == 60
    tree = _tree(2, True, rng)
    theta = post.pack(tree, 1.3)
    pred = predict_soft_tree(tree, X, 0.2)
    ll = norm.logpdf(y, pred, 1.3).sum()
    assert post.log_likelihood(tree, theta, 0.2) == pytest.approx(ll, rel=1e-10)


def test_soft_tree_rows_sum_to_one_and_hard_limit():
    rng = np.random.default_rng(5)
    X = rng.random((50, 3))
    tree = _tree(3, False, rng)
    phi = soft_leaf_probabilities(tree, X, 0.3)
    np.testing.assert_allclose(phi.sum(1), 1.0)
    np.testing.assert_allclose(predict_soft_tree(tree, X, 1e-8), predict_hard_tree(tree, X), atol=1e-6)
    # simplex tree reduces to the axis-aligned tree when Δ is a vertex
    t2 = SoftTree(3, True).grow(0, 0, 0.5, np.array([0.0, 1.0, 0.0]), 2.0)
    t1 = SoftTree(3, False).grow(0, 1, 0.5, None, 2.0)
    np.testing.assert_allclose(predict_soft_tree(t2, X, 0.1), predict_soft_tree(t1, X, 0.1))


def test_split_direction_right_is_psi():
    t = SoftTree(1).grow(0, 0, 0.5, None, 1.0)
    phi = soft_leaf_probabilities(t, [[0.6]], h=0.1)
    assert phi[0, 1] == pytest.approx(1 / (1 + np.exp(-1.0)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-4, 4), min_size=1, max_size=5))
def test_stick_breaking_round_trip_and_log_jacobian(y):
    y = np.array(y)
    x = _stick_breaking(y)
    assert x.sum() == pytest.approx(1.0) and np.all(x > 0)
    np.testing.assert_allclose(_stick_breaking_inverse(x), y, atol=1e-6)
    eps = 1e-6
    J = np.array([(_stick_breaking(y + eps * e)[:-1] - _stick_breaking(y - eps * e)[:-1]) / (2 * eps)
                  for e in np.eye(y.shape[0])]).T
    assert _stick_breaking_log_jacobian(y) == pytest.approx(np.log(abs(np.linalg.det(J))), abs=1e-5)


def test_logit_and_log_transforms_jacobians():
    # τ = logistic(u): d τ / du = τ(1 − τ);  σ = exp(v): dσ/dv = σ. The kernel's Jacobian terms equal these.
    X, y = _data("regression", p=1)
    post = TreePosterior(X, y, "regression", False)
    tree = SoftTree(1).grow(0, 0, 0.3, None, 0.2)
    theta = post.pack(tree, 2.0)
    diff = post.logp(tree, theta, 0.1, True) - post.logp(tree, theta, 0.1, False)
    assert diff == pytest.approx(np.log(0.3 * 0.7) + np.log(2.0))


def test_tree_prior_by_hand():
    t = SoftTree(2).grow(0, 0, 0.5, None, 0.0).grow(1, 1, 0.5, None, 0.0)
    a, b = 0.45, 2.5
    ps = lambda d: a * (1 + d) ** (-b)  # noqa: E731
    expected = np.log(ps(0)) + np.log(ps(1)) + np.log(1 - ps(1)) + 2 * np.log(1 - ps(2))
    assert log_tree_prior(t, a, b) == pytest.approx(expected)


def test_grow_then_prune_restores_tree():
    rng = np.random.default_rng(6)
    t = _tree(3, True, rng)
    g = t.grow(4, 2, 0.2, rng.dirichlet(np.ones(3)), 5.0)
    assert g.n_leaves == t.n_leaves + 1
    back, removed = g.prune(4)
    assert back.same_as(t)
    assert removed["right_value"] == 5.0 and removed["threshold"] == 0.2


def test_bad_inputs_raise():
    t = SoftTree(2)
    with pytest.raises(ValueError, match="h"):
        soft_leaf_probabilities(t, np.zeros((2, 2)), h=0.0)
    with pytest.raises(ValueError, match="h"):
        soft_leaf_probabilities(t, np.zeros((2, 2)), h=-1.0)
    with pytest.raises(ValueError, match="NaN|nan|infinity"):
        soft_leaf_probabilities(t, np.array([[np.nan, 0.0]]), h=0.1)
    with pytest.raises(ValueError, match="features"):
        soft_leaf_probabilities(t, np.zeros((2, 3)), h=0.1)
    with pytest.raises(TypeError):
        soft_leaf_probabilities("tree", np.zeros((2, 2)), h=0.1)
    with pytest.raises(ValueError, match="leaf"):
        t.grow(0, 0, 0.5, None, 0.0).grow(0, 0, 0.5, None, 0.0)


@pytest.mark.parametrize("y", [[800.0, 0.0, 0.0], [0.0, 800.0, -3.0], [-800.0, 800.0, 800.0]])
def test_stick_breaking_is_finite_far_out(y):
    """A break that takes (almost) the whole stick underflows the rest of the stick to zero; the
    map must still return a simplex and a finite log-Jacobian (it used to take log(0))."""
    y = np.array(y)
    x = _stick_breaking(y)
    assert np.all(np.isfinite(x)) and np.all(x >= 0) and abs(x.sum() - 1.0) < 1e-12
    assert np.isfinite(_stick_breaking_log_jacobian(y))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), p=st.integers(1, 12), M=st.integers(2, 5), n_grow=st.integers(0, 6),
       use_simplex=st.booleans(), h=st.sampled_from([0.03, 0.2, 1.0]))
def test_classification_density_and_gradient_on_random_trees(seed, p, M, n_grow, use_simplex, h):
    """The row-vectorised classification kernel against NumPy (density) and finite differences (gradient),
    for random topologies, many features (long stick-breaking maps) and several classes."""
    rng = np.random.default_rng(seed)
    X = rng.random((30, p))
    y = rng.integers(0, M, 30)
    tree = SoftTree(p, use_simplex)
    for _ in range(n_grow):
        tree = tree.grow(int(rng.choice(tree.leaves())), int(rng.integers(p)), float(rng.uniform(0.1, 0.9)),
                         rng.dirichlet(np.ones(p)), 0.0)
    post = TreePosterior(X, y, "classification", use_simplex, n_classes=M, class_alpha=0.8)
    theta = post.pack(tree)
    C = soft_leaf_probabilities(tree, X, h).T @ np.eye(M)[y]
    a = np.full(M, 0.8)
    expected = np.sum(gammaln(a.sum()) - gammaln(C.sum(1) + a.sum()) + np.sum(gammaln(C + a) - gammaln(a), axis=1))
    assert post.log_likelihood(tree, theta, h) == pytest.approx(expected, rel=1e-10, abs=1e-10)
    if theta.size:
        _, g = post.logp_grad(tree, theta, h)
        eps = 1e-6
        fd = np.array([(post.logp(tree, theta + eps * e, h) - post.logp(tree, theta - eps * e, h)) / (2 * eps)
                       for e in np.eye(theta.size)])
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(G=st.integers(1, 70), k=st.integers(1, 6), frac_zero=st.sampled_from([0.0, 0.5, 0.9, 1.0]),
       seed=st.integers(0, 10_000))
def test_sparse_lane_sums_equal_the_dense_sums_bit_for_bit(G, k, frac_zero, seed):
    """The sparse gradient sums skip exact zeros but keep ``_rsum``'s lanes and order, so their
    results must be identical to the dense sums (not merely close): any difference would change
    every chain. Lengths that are not multiples of 8 exercise the tail lane."""
    from tabular_trees.bayes._posterior_kernels import _lane_dots_sparse, _rsum
    rng = np.random.default_rng(seed)
    v = rng.normal(size=G) * 10.0 ** rng.integers(-8, 8, G)
    v[rng.random(G) < frac_zero] = 0.0
    v[rng.random(G) < 0.1] *= -0.0  # signed zeros are skipped too
    rows = rng.normal(size=(k, G)) * 10.0 ** rng.integers(-8, 8, (k, G))
    out = np.empty(k)
    _lane_dots_sparse(v, G, k, rows, np.empty(8 * k), out)
    dense = np.array([_rsum(v * rows[j], G) for j in range(k)])
    assert out.tobytes() == dense.tobytes()


def test_logistic_kernel_matches_expit_and_saturates_exactly():
    from scipy.special import expit

    import numba

    from tabular_trees.bayes._posterior_kernels import _logistic_clipped

    @numba.njit
    def _sigmoid_rows(z, out, zmax):
        for g in range(z.shape[0]):
            out[g] = _logistic_clipped(z[g], zmax)

    z = np.concatenate([np.linspace(-45, 45, 20001), [0.0, -0.0, 36.7, -36.7, 40.0, -40.0, 1e300, -1e300]])
    out = np.empty_like(z)
    _sigmoid_rows(z, out, 40.0)
    inside = np.abs(z) <= 40.0
    # degree-13 Taylor polynomial after Cody-Waite reduction, then one division: within a few ulp
    # (2.2e-16 each) of the exact logistic
    np.testing.assert_allclose(out[inside], expit(z[inside]), rtol=1e-15, atol=0)
    assert np.all(out[z > 40.0] == 1.0) and np.all(out[z < -40.0] == 0.0)


def test_simplex_gradient_with_mostly_saturated_splits_matches_finite_differences():
    """At small h most rows' splits saturate and the Δ-gradient is summed sparsely (p ≥ 4 and
    under a quarter of the rows unsaturated): the gradient must still match the density."""
    rng = np.random.default_rng(3)
    p, n = 6, 400
    X = rng.random((n, p))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    lean = lambda f: np.where(np.arange(p) == f, 0.85, 0.15 / (p - 1))  # noqa: E731  (projection ≈ one feature)
    tree = SoftTree(p, True).grow(0, 0, 0.5, lean(0), 0.0).grow(1, 0, 0.45, lean(1), 0.0)
    post = TreePosterior(X, y, "classification", True)
    theta = post.pack(tree)
    h = 0.001
    for node in tree.internal_nodes():  # the sparse path's precondition holds at every split
        z = (X @ tree.simplex[node] - tree.threshold[node]) / h
        assert 0 < np.mean(np.abs(z) <= 40) < 0.25
    _, g = post.logp_grad(tree, theta, h)
    eps = 1e-7
    fd = np.array([(post.logp(tree, theta + eps * e, h) - post.logp(tree, theta - eps * e, h)) / (2 * eps)
                   for e in np.eye(theta.size)])
    np.testing.assert_allclose(g, fd, rtol=2e-4, atol=1e-4)
