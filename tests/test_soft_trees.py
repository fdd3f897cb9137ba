"""Tests for tabular_trees.soft_trees: analytic gradients, empirical NTK -> limiting NTK, GD vs NTK dynamics."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from tabular_trees import ntk
from tabular_trees.soft_trees import SoftTreeEnsemble, SoftTreeRegressor, perfect_tree

ASYM = (0, None, (1, None, None))  # Fig. 5's asymmetric tree


def _unit_points(n, seed):
    ang = np.random.default_rng(seed).uniform(0, 2 * np.pi, n)
    return np.c_[np.cos(ang), np.sin(ang)]


def _fd_jacobian(ens, X, eps=1e-6):
    th = ens.get_params_vector()
    J = np.empty((X.shape[0], th.size))
    for p in range(th.size):
        e = np.zeros_like(th)
        e[p] = eps
        ens.set_params_vector(th + e)
        fp = ens.decision_function(X)
        ens.set_params_vector(th - e)
        fm = ens.decision_function(X)
        J[:, p] = (fp - fm) / (2 * eps)
    ens.set_params_vector(th)
    return J


@pytest.mark.parametrize("mode", ["AAA", "AAI", "oblique"])
def test_analytic_jacobian_matches_finite_differences_and_ntk(mode):
    X = np.random.default_rng(0).normal(size=(5, 3))
    archs = [perfect_tree((0, (1, 2))), (2, None, (0, (None, None, None), None))]
    ens = SoftTreeEnsemble(archs, [3, 2], n_features=3, mode=mode, random_state=0)
    J = ens.jacobian(X)
    assert J.shape == (5, ens.n_params)
    assert np.allclose(J, _fd_jacobian(ens, X), atol=1e-7)
    assert np.allclose(ens.empirical_ntk(X), J @ J.T, atol=1e-12)
    Y = np.random.default_rng(1).normal(size=(2, 3))
    assert np.allclose(ens.empirical_ntk(X, Y), J @ ens.jacobian(Y).T, atol=1e-12)


def test_parameter_counts_and_constraints():
    F = 4
    aaa = SoftTreeEnsemble(perfect_tree((0, 1)), 5, n_features=F, mode="AAA", random_state=0)
    aai = SoftTreeEnsemble(perfect_tree((0, 1)), 5, n_features=F, mode="AAI", random_state=0)
    obl = SoftTreeEnsemble(perfect_tree((0, 1)), 5, n_features=F, mode="oblique", random_state=0)
    nodes, leaves = 3, 4
    assert aaa.n_params == 5 * (nodes * 1 + nodes + leaves)
    assert aai.n_params == obl.n_params == 5 * (nodes * F + nodes + leaves)
    # AAI starts axis-aligned: same function at initialisation as AAA with the same seed
    X = np.random.default_rng(2).normal(size=(6, F))
    assert np.allclose(aaa.decision_function(X), aai.decision_function(X))
    y = np.random.default_rng(3).normal(size=6)
    for ens in (aaa, aai):
        ens.fit_gd(X, y, learning_rate=0.1, n_steps=5)
    Wa = aaa._archs[0].W
    Wi = aai._archs[0].W
    assert np.count_nonzero(Wa) == 5 * nodes  # AAA stays axis-aligned
    assert np.count_nonzero(Wi) == 5 * nodes * F  # AAI leaves the axes


def test_deterministic_given_seed():
    X = _unit_points(4, 0)
    a = SoftTreeEnsemble(perfect_tree((None, None)), 8, n_features=2, random_state=5)
    b = SoftTreeEnsemble(perfect_tree((None, None)), 8, n_features=2, random_state=5)
    assert np.array_equal(a.empirical_ntk(X), b.empirical_ntk(X))


def _mean_rel_error(make, K, X, seeds):
    return np.mean([np.abs(make(s).empirical_ntk(X) - K).max() / np.abs(K).max() for s in seeds])


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_empirical_ntk_converges_to_axis_aligned_limit(mode):
    X = _unit_points(6, 1)
    K = ntk.axis_aligned_ntk(X, paths=ntk.tree_paths(ASYM), mode=mode)
    errs = []
    for M in (16, 256, 8192):
        errs.append(_mean_rel_error(lambda s: SoftTreeEnsemble(ASYM, M, n_features=2, mode=mode, random_state=s),
                                    K, X, range(4)))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 0.05
    # Monte-Carlo error scales like M^-1/2: from 256 to 8192 trees it should drop by ~sqrt(32) = 5.7
    assert errs[1] / errs[2] > 2.5


def test_empirical_ntk_converges_to_oblique_limit():
    X = _unit_points(6, 2)
    K = ntk.oblique_ntk(X, depth=2)
    tree = perfect_tree((None, None))
    e_small = _mean_rel_error(lambda s: SoftTreeEnsemble(tree, 64, n_features=2, mode="oblique", random_state=s), K, X, range(4))
    e_big = _mean_rel_error(lambda s: SoftTreeEnsemble(tree, 8192, n_features=2, mode="oblique", random_state=s), K, X, range(4))
    assert e_big < e_small and e_big < 0.05


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_prop41_finite_ensembles_share_the_limit(mode):
    """An asymmetric-tree ensemble and the converted oblivious mixture both tend to the same kernel."""
    X = _unit_points(5, 3)
    conv = ntk.to_oblivious(ntk.tree_paths(ASYM))
    K = ntk.axis_aligned_ntk(X, paths=ntk.tree_paths(ASYM), mode=mode)
    M = 8192
    trees = [perfect_tree(f) for _, f in conv]
    counts = [int(round(w * M)) for w, _ in conv]
    err = _mean_rel_error(lambda s: SoftTreeEnsemble(trees, counts, n_features=2, mode=mode, random_state=s), K, X, range(3))
    assert err < 0.05


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_gradient_descent_follows_ntk_trajectory(mode):
    """Fig. 3 setting: 10 train / 10 test points, random targets, lr 0.1, initial output subtracted."""
    rng = np.random.default_rng(0)
    Xtr, Xte = rng.uniform(-1, 1, (10, 2)), rng.uniform(-1, 1, (10, 2))
    y = rng.normal(size=10)
    tree = perfect_tree((0, 1))
    steps = [0, 10, 50, 200]
    H = ntk.oblivious_ntk(Xtr, features=(0, 1), mode=mode)
    He = ntk.oblivious_ntk(Xte, Xtr, features=(0, 1), mode=mode)
    ref = ntk.ntk_trajectory(H, He, y, learning_rate=0.1, steps=steps, reduction="mean", discrete=True)
    errs = {}
    for M in (16, 4096):
        e = []
        for s in range(2):
            ens = SoftTreeEnsemble(tree, M, n_features=2, mode=mode, random_state=s)
            rec, out = ens.fit_gd(Xtr, y, learning_rate=0.1, n_steps=200, X_eval=Xte, record_steps=steps,
                                  reduction="mean")
            assert np.array_equal(rec, steps) and np.allclose(out[0], 0.0)
            e.append(np.abs(out - ref).max() / np.abs(ref).max())
        errs[M] = np.mean(e)
    assert errs[4096] < errs[16]
    assert errs[4096] < 0.08


def test_sum_reduction_equals_mean_with_scaled_rate():
    X = _unit_points(4, 5)
    y = np.arange(4.0)
    a = SoftTreeEnsemble(ASYM, 6, n_features=2, random_state=1)
    b = SoftTreeEnsemble(ASYM, 6, n_features=2, random_state=1)
    _, fa = a.fit_gd(X, y, learning_rate=0.05, n_steps=7, reduction="sum")
    _, fb = b.fit_gd(X, y, learning_rate=0.2, n_steps=7, reduction="mean")
    assert np.allclose(fa, fb, atol=1e-12)


def test_regressor_learns_and_is_sklearn_compatible():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.sin(X[:, 0]) + 0.5 * (X[:, 1] > 0)
    reg = SoftTreeRegressor(n_trees=32, n_iter=150, random_state=0).fit(X, y)
    assert reg.loss_curve_[-1] < 0.5 * reg.loss_curve_[0]
    assert np.allclose(reg.predict(X), SoftTreeRegressor(n_trees=32, n_iter=150, random_state=0).fit(X, y).predict(X))
    check_estimator(SoftTreeRegressor(n_trees=8, n_iter=20, random_state=0))


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(architectures=ASYM, n_trees=4, n_features=2, mode="AA"), ValueError, "mode"),
        (dict(architectures=ASYM, n_trees=0, n_features=2), ValueError, "n_trees"),
        (dict(architectures=(3, None, None), n_trees=4, n_features=2), ValueError, "out of range"),
        (dict(architectures=None, n_trees=4, n_features=2), ValueError, "leaf"),
        (dict(architectures=ASYM, n_trees=4, n_features=2, alpha=0.0), ValueError, "alpha"),
        (dict(architectures=[ASYM, ASYM], n_trees=[4], n_features=2), ValueError, "n_trees"),
        (dict(architectures=((0, 0), None, None), n_trees=4, n_features=2), ValueError, "repeats"),
    ],
)
def test_bad_construction(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SoftTreeEnsemble(**kwargs)


def test_bad_data():
    ens = SoftTreeEnsemble(ASYM, 4, n_features=2, random_state=0)
    with pytest.raises(ValueError, match="features"):
        ens.empirical_ntk(np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN|infinity"):
        ens.decision_function(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="learning_rate"):
        ens.fit_gd(np.ones((3, 2)), np.ones(3), learning_rate=-1.0)
    with pytest.raises(ValueError, match="samples"):
        ens.fit_gd(np.ones((3, 2)), np.ones(4))
    with pytest.raises(ValueError, match="theta"):
        ens.set_params_vector(np.ones(3))


def test_empirical_ntk_refuses_inputs_whose_products_overflow():
    # Before: X * 1e300 gave a kernel full of NaN without a word.
    ens = SoftTreeEnsemble(perfect_tree((None, None)), 4, n_features=2, random_state=0)
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="X has values up to"):
        ens.empirical_ntk(X * 1e300)
    with pytest.raises(ValueError, match="Y has values up to"):
        ens.empirical_ntk(X, X * 1e300)
    assert np.all(np.isfinite(ens.empirical_ntk(X * 1e100)))


# ----------------------------------------------------------------------------- divergence is not a result
def _sine_data(n=60, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, 3))
    return X, np.sin(X[:, 0])


@pytest.mark.parametrize("n_iter", [5, 60])
def test_regressor_refuses_a_fit_whose_loss_explodes_naming_learning_rate(n_iter):
    # learning_rate=1e6: after 5 steps the loss is finite but ~1e51 (it used to give R^2 ~ -1e226 silently);
    # after 60 steps the outputs overflow. Both raise, naming learning_rate and a smaller value to try.
    X, y = _sine_data()
    reg = SoftTreeRegressor(n_trees=8, n_iter=n_iter, learning_rate=1e6, random_state=0)
    with pytest.raises(ValueError, match=r"diverged.*learning_rate=1000000\.0.*smaller learning_rate"):
        reg.fit(X, y)
    assert not hasattr(reg, "ensemble_") and not hasattr(reg, "loss_curve_")


def test_regressor_refuses_a_loss_that_ends_above_its_initial_value():
    # learning_rate=10 overshoots without overflowing within 200 steps: the final loss is above the initial
    # one (the prediction y_mean_), which is refused rather than returned as a fit
    X, y = _sine_data()
    with pytest.raises(ValueError, match=r"rose from 1 at step 0 .* learning_rate=10\.0"):
        SoftTreeRegressor(n_trees=8, learning_rate=10.0, random_state=0).fit(X, y)


def test_regressor_failed_refit_leaves_the_previous_fit_intact():
    X, y = _sine_data()
    reg = SoftTreeRegressor(n_trees=8, n_iter=50, random_state=0).fit(X, y)
    before = reg.predict(X)
    with pytest.raises(ValueError, match="learning_rate"):
        reg.set_params(learning_rate=1e6, n_iter=5).fit(X, y * 7.0 + 3.0)
    np.testing.assert_array_equal(reg.predict(X), before)


def test_regressor_with_a_stable_learning_rate_fits_without_warning():
    import warnings

    X, y = _sine_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = SoftTreeRegressor(n_trees=8, n_iter=100, learning_rate=1.0, random_state=0).fit(X, y)
    assert reg.loss_curve_[-1] < 0.2 * reg.loss_curve_[0]


def test_fit_gd_overflow_raises_and_a_rising_loss_warns_naming_learning_rate():
    from sklearn.exceptions import ConvergenceWarning

    X, y = _sine_data()
    ens = SoftTreeEnsemble(perfect_tree((None, None)), 8, n_features=3, random_state=0)
    with pytest.raises(ValueError, match=r"non-finite outputs.*learning_rate=1000000\.0"):
        ens.fit_gd(X, y, learning_rate=1e6, n_steps=200)
    ens = SoftTreeEnsemble(perfect_tree((None, None)), 8, n_features=3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="learning_rate=1000000.0; use a smaller learning_rate"):
        ens.fit_gd(X, y, learning_rate=1e6, n_steps=5)
