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


def _kernel_workspace(post, tree, theta, h):
    """Evaluate the compiled density and gradient once; return its workspace, layout and data record."""
    from tabular_trees.bayes._posterior_kernels import _log_posterior_ws, _new_workspace, _ws_layout
    data, topo = post.kernel_inputs(tree)
    ws = _new_workspace(data, tree.n_nodes)
    _log_posterior_ws(theta, np.zeros(theta.size), True, True, h, data, topo, ws)
    return ws, _ws_layout(tree.n_nodes, post.n_features), data


def _dense_split_terms(ws, lay, data, tree, node, h):
    """What the dense kernel computes for one split, in its operations and summation order:
    ψ at every row, and the τ- and Δ-gradients (``_rsum`` over all rows)."""
    import numba

    from tabular_trees.bayes._posterior_kernels import _logistic_clipped, _rsum

    @numba.njit
    def logistic_rows(z):
        return np.array([_logistic_clipped(v, 40.0) for v in z])

    G, p = data.X.shape
    X = data.X
    if tree.use_simplex:
        c = ws[lay.SIMP + node, :p]
        src = X[:, 0] * c[0]
        for f in range(1, p):
            src = src + X[:, f] * c[f]
    else:
        src = X[:, tree.feature[node]]
    inv_h = 1.0 / h
    psi = logistic_rows((src - ws[lay.TAU, node]) * inv_h)
    left, right = tree.left[node], tree.right[node]
    xv = ws[lay.DP, :G] * ws[lay.PHI + node, :G] * (psi - psi * psi) * (ws[lay.S + right, :G] - ws[lay.S + left, :G])
    g_tau = -_rsum(xv, G) * inv_h
    g_simplex = np.array([_rsum(xv * X[:, f], G) * inv_h for f in range(p)]) if tree.use_simplex else None
    return psi, g_tau, g_simplex


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), p=st.integers(1, 4), n=st.integers(1, 90), n_grow=st.integers(1, 6),
       use_simplex=st.booleans(), task=st.sampled_from(["regression", "classification"]),
       h=st.sampled_from([1e-4, 1e-3, 0.3]))
def test_band_evaluation_gives_the_dense_bits(seed, p, n, n_grow, use_simplex, task, h):
    """At small h a split's logistic and gradient terms are evaluated on its band rows only (|z| ≤ 40; the
    others are exactly 0 or 1). The result must be the dense evaluation's bits, not merely close: any
    difference would change every chain. Features sit on five levels jittered by a few h and thresholds at a
    level, so a band holds many rows with distinct non-zero terms (a change of summation order shows);
    row counts that are not multiples of 8 exercise ``_rsum``'s tail lane; h = 0.3 takes the dense path."""
    rng = np.random.default_rng(seed)
    levels = 0.05 + 0.225 * np.arange(5)
    X = levels[rng.integers(0, 5, (n, p))] + h * rng.uniform(-3, 3, (n, p))
    y = rng.normal(size=n) if task == "regression" else rng.integers(0, 3, n)
    tree = SoftTree(p, use_simplex)
    for _ in range(n_grow):
        f = int(rng.integers(p))
        lean = np.where(np.arange(p) == f, 1.0 - 1e-3 * (p - 1), 1e-3)  # projection ≈ feature f
        tree = tree.grow(int(rng.choice(tree.leaves())), f, float(np.clip(rng.choice(levels) + h * rng.uniform(-1, 1), 0.01, 0.99)),
                         lean, float(rng.normal()))
    post = TreePosterior(X, y, task, use_simplex, n_classes=3)
    theta = post.pack(tree, sigma=0.7)
    ws, lay, data = _kernel_workspace(post, tree, theta, h)
    for node in tree.internal_nodes():
        psi, g_tau, g_simplex = _dense_split_terms(ws, lay, data, tree, node, h)
        assert ws[lay.PSI + node, :data.X.shape[0]].tobytes() == psi.tobytes()
        assert np.float64(ws[lay.GTAU, node]).tobytes() == np.float64(g_tau).tobytes()
        if use_simplex:
            assert ws[lay.GSIMP + node, :p].tobytes() == g_simplex.tobytes()


@pytest.mark.parametrize("h, band", [(1e-3, True), (1.0, False)])
def test_small_h_takes_the_band_path_and_large_h_the_dense_one(h, band):
    """The bit-identity test above covers both paths only if both are taken: at h = 0.001 on 200 spread rows
    each split's band holds a few rows (listed); at h = 1 every row is inside it (evaluated densely, −1)."""
    rng = np.random.default_rng(0)
    X = rng.random((200, 2))
    post = TreePosterior(X, (X[:, 0] > 0.5).astype(int), "classification", True)
    tree = _tree(2, True, rng)
    ws, lay, data = _kernel_workspace(post, tree, post.pack(tree), h)
    counts = ws[lay.NBAND, tree.internal_nodes()]
    assert np.all(counts >= 1) if band else np.all(counts == -1), counts


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
    """At small h most rows' splits saturate and the gradients are summed over each split's band rows only
    (under a quarter of the rows unsaturated): the gradient must still match the density."""
    rng = np.random.default_rng(3)
    p, n = 6, 400
    X = rng.random((n, p))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    lean = lambda f: np.where(np.arange(p) == f, 0.85, 0.15 / (p - 1))  # noqa: E731  (projection ≈ one feature)
    tree = SoftTree(p, True).grow(0, 0, 0.5, lean(0), 0.0).grow(1, 0, 0.45, lean(1), 0.0)
    post = TreePosterior(X, y, "classification", True)
    theta = post.pack(tree)
    h = 0.001
    for node in tree.internal_nodes():  # the band path's precondition holds at every split
        z = (X @ tree.simplex[node] - tree.threshold[node]) / h
        assert 0 < np.mean(np.abs(z) <= 40) < 0.25
    _, g = post.logp_grad(tree, theta, h)
    eps = 1e-7
    fd = np.array([(post.logp(tree, theta + eps * e, h) - post.logp(tree, theta - eps * e, h)) / (2 * eps)
                   for e in np.eye(theta.size)])
    np.testing.assert_allclose(g, fd, rtol=2e-4, atol=1e-4)
