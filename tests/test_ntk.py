"""Tests for tabular_trees.ntk: closed forms against quadrature / Monte Carlo, structure, bank, errors."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import erf

from tabular_trees import ntk

ALPHA, BETA = 2.0, 0.5


def _sigma(c, a):
    return 0.5 * erf(a * c) + 0.5


def _sigma_dot(c, a):
    return a / np.sqrt(np.pi) * np.exp(-((a * c) ** 2))


def _quad_expectations(cov, alpha, n_grid=1601, half_width=9.0):
    """E[s(a)s(b)], E[s'(a)s'(b)] for (a, b) ~ N(0, cov) by a fine trapezoid rule in whitened coordinates.

    The integrand is smooth and decays like a Gaussian, so the trapezoid rule converges
    exponentially fast once the grid resolves the steepest transition of sigma.
    """
    z = np.linspace(-half_width, half_width, n_grid)
    w = np.exp(-0.5 * z**2)
    w = w / w.sum()
    evals, evecs = np.linalg.eigh(cov)
    R = evecs * np.sqrt(np.clip(evals, 0.0, None))  # cov = R R^T
    Z1, Z2 = np.meshgrid(z, z, indexing="ij")
    W = np.outer(w, w)
    a = R[0, 0] * Z1 + R[0, 1] * Z2
    b = R[1, 0] * Z1 + R[1, 1] * Z2
    return (
        np.sum(W * _sigma(a, alpha) * _sigma(b, alpha)),
        np.sum(W * _sigma_dot(a, alpha) * _sigma_dot(b, alpha)),
    )


# ------------------------------------------------------------------ T and Tdot
@pytest.mark.parametrize("alpha,beta", [(0.5, 0.1), (1.0, 0.5), (2.0, 0.5), (4.0, 1.0), (2.0, 0.0)])
def test_single_feature_expectations_match_quadrature(alpha, beta):
    x = np.array([[-1.3], [0.0], [0.4], [1.7]])
    T, Td = ntk.node_expectations(x, features=0, alpha=alpha, beta=beta)
    for i, j in itertools.product(range(4), range(4)):
        xi, xj = x[i, 0], x[j, 0]
        cov = np.array([[xi * xi + beta**2, xi * xj + beta**2], [xi * xj + beta**2, xj * xj + beta**2]])
        t_ref, td_ref = _quad_expectations(cov, alpha)
        assert T[i, j] == pytest.approx(t_ref, abs=1e-9)
        assert Td[i, j] == pytest.approx(td_ref, rel=1e-8)


def test_multi_feature_expectations_match_monte_carlo():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 4)) * 0.6
    S = (0, 2, 3)
    T, Td = ntk.node_expectations(X, features=S, alpha=ALPHA, beta=BETA)
    n_mc = 400_000
    u = rng.standard_normal((n_mc, len(S)))
    v = rng.standard_normal(n_mc)
    Z = X[:, S] @ u.T + BETA * v  # (3, n_mc)
    s, sd = _sigma(Z, ALPHA), _sigma_dot(Z, ALPHA)
    T_mc = s @ s.T / n_mc
    Td_mc = sd @ sd.T / n_mc
    assert np.allclose(T, T_mc, atol=4e-3)
    assert np.allclose(Td, Td_mc, rtol=3e-2, atol=3e-3)


def test_expectations_at_zero_input():
    T, Td = ntk.node_expectations(np.zeros((1, 1)), features=0, alpha=1.5, beta=0.0)
    assert T[0, 0] == pytest.approx(0.25)
    assert Td[0, 0] == pytest.approx(1.5**2 / np.pi)


# ------------------------------------------------------------------ kernel structure
def _data(n=7, F=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, F))


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_kernels_symmetric_psd_finite(mode):
    X = _data(12, 3)
    for paths in ([(0,), (0, 1), (0, 1)], [(2, 2)] * 4, [((0, 1), 2)] * 4):
        K = ntk.axis_aligned_ntk(X, paths=paths, mode=mode)
        assert np.all(np.isfinite(K))
        assert np.allclose(K, K.T, atol=1e-13)
        assert np.linalg.eigvalsh(K).min() > -1e-10 * np.abs(K).max()
    K = ntk.oblique_ntk(X, depth=3)
    assert np.allclose(K, K.T, atol=1e-13) and np.linalg.eigvalsh(K).min() > -1e-10 * np.abs(K).max()


def test_train_test_block_consistent_with_joint_matrix():
    X = _data(10, 3)
    Xa, Xb = X[:6], X[6:]
    Kfull = ntk.oblivious_ntk(X, features=(0, 2), mode="AAI")
    Kab = ntk.oblivious_ntk(Xa, Xb, features=(0, 2), mode="AAI")
    assert np.allclose(Kab, Kfull[:6, 6:], atol=1e-14)
    assert np.allclose(ntk.oblique_ntk(Xa, Xb, depth=2), ntk.oblique_ntk(X, depth=2)[:6, 6:], atol=1e-14)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_aaa_with_all_features_at_every_split_is_oblique(depth):
    X = _data(8, 3)
    allf = (0, 1, 2)
    paths = [(allf,) * depth] * 2**depth
    for mode in ("AAA", "AAI"):
        K = ntk.axis_aligned_ntk(X, paths=paths, mode=mode)
        assert np.allclose(K, ntk.oblique_ntk(X, depth=depth), rtol=1e-12, atol=1e-12)
    assert np.allclose(ntk.oblivious_ntk(X, features=(allf,) * depth), ntk.oblique_ntk(X, depth=depth), rtol=1e-12)


def test_oblivious_equals_explicit_formula():
    X = _data(6, 3)
    feats = (2, 0, 0)
    Ts, Gs = [], []
    for s in feats:
        T, Td = ntk.node_expectations(X, features=s, alpha=ALPHA, beta=BETA)
        Ts.append(T)
        Gs.append((np.outer(X[:, s], X[:, s]) + BETA**2) * Td)
    ref = np.prod(Ts, axis=0)
    for d in range(3):
        ref = ref + Gs[d] * np.prod([Ts[t] for t in range(3) if t != d], axis=0)
    assert np.allclose(ntk.oblivious_ntk(X, features=feats), 8 * ref, rtol=1e-13)
    # AAI uses the full inner product in Sigma
    ref_aai = np.prod(Ts, axis=0)
    Sig = X @ X.T + BETA**2
    for d in range(3):
        T, Td = ntk.node_expectations(X, features=feats[d], alpha=ALPHA, beta=BETA)
        ref_aai = ref_aai + Sig * Td * np.prod([Ts[t] for t in range(3) if t != d], axis=0)
    assert np.allclose(ntk.oblivious_ntk(X, features=feats, mode="AAI"), 8 * ref_aai, rtol=1e-13)


def test_oblique_is_rotation_invariant_axis_aligned_is_not():
    X = _data(6, 2)
    th = 0.7
    Q = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    assert np.allclose(ntk.oblique_ntk(X, depth=2), ntk.oblique_ntk(X @ Q.T, depth=2), rtol=1e-12)
    K1 = ntk.oblivious_ntk(X, features=(0, 1))
    K2 = ntk.oblivious_ntk(X @ Q.T, features=(0, 1))
    assert np.abs(K1 - K2).max() > 1e-2


def test_path_order_and_tree_paths():
    X = _data(5, 3)
    assert np.allclose(ntk.axis_aligned_ntk(X, paths=[(0, 1, 2)]), ntk.axis_aligned_ntk(X, paths=[(2, 0, 1)]), rtol=1e-13)
    tree = (0, None, (1, (2, None, None), None))
    assert ntk.tree_paths(tree) == [(0,), (0, 1, 2), (0, 1, 2), (0, 1)]


# ------------------------------------------------------------------ Prop 3.1 and 4.1
@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_mixture_is_weighted_sum(mode):
    X = _data(7, 3)
    archs = [[(0,), (0, 1), (0, 1)], [(2, 2)] * 4, [((0, 2),)] * 2]
    w = [0.2, 0.5, 0.3]
    K = ntk.mixture_ntk(X, architectures=archs, weights=w, mode=mode)
    ref = sum(wk * ntk.axis_aligned_ntk(X, paths=a, mode=mode) for wk, a in zip(w, archs))
    assert np.allclose(K, ref, rtol=1e-12, atol=1e-12)
    # concatenating architectures = summing their kernels
    both = ntk.axis_aligned_ntk(X, paths=archs[0] + archs[1], mode=mode)
    parts = ntk.axis_aligned_ntk(X, paths=archs[0], mode=mode) + ntk.axis_aligned_ntk(X, paths=archs[1], mode=mode)
    assert np.allclose(both, parts, rtol=1e-12)


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
@pytest.mark.parametrize(
    "tree",
    [
        (0, None, (1, None, None)),
        (0, (1, None, (2, None, None)), (2, (0, None, None), None)),
        (1, (1, None, None), (0, ((0, 2), None, None), None)),
    ],
)
def test_prop41_oblivious_conversion_exact(tree, mode):
    X = _data(9, 3)
    paths = ntk.tree_paths(tree)
    conv = ntk.to_oblivious(paths)
    assert sum(w for w, _ in conv) == pytest.approx(1.0, abs=1e-15)  # full binary tree: proportions
    K = ntk.axis_aligned_ntk(X, paths=paths, mode=mode)
    Kc = sum(w * ntk.oblivious_ntk(X, features=f, mode=mode) for w, f in conv)
    assert np.allclose(K, Kc, rtol=1e-12, atol=1e-12)


def test_prop41_fig5_example():
    assert ntk.to_oblivious([(0,), (0, 1), (0, 1)]) == [(0.5, (0,)), (0.5, (0, 1))]


# ------------------------------------------------------------------ kernel bank
@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_bank_slices_equal_oblivious(mode):
    X = _data(11, 4, seed=3)
    Y = _data(5, 4, seed=4)
    sets = ntk.all_feature_sets(4, 3) + [(1, 1), (3, 0, 3, 2), (2, 2, 2, 2, 1)]
    B = ntk.kernel_bank(X, Y, feature_sets=sets, mode=mode, alpha=1.3, beta=0.7)
    assert B.shape == (len(sets), 11, 5)
    for k, fs in enumerate(sets):
        ref = ntk.oblivious_ntk(X, Y, features=fs, mode=mode, alpha=1.3, beta=0.7)
        assert np.allclose(B[k], ref, rtol=1e-12, atol=1e-12), fs
    Bs = ntk.kernel_bank(X, feature_sets=sets, mode=mode, alpha=1.3, beta=0.7)
    assert np.allclose(Bs, Bs.transpose(0, 2, 1), atol=1e-13)


def test_bank_streaming_out_float32_and_weighted_sum():
    X = _data(9, 3)
    sets = ntk.all_feature_sets(3, 3)
    B = ntk.kernel_bank(X, feature_sets=sets)
    chunks = list(ntk.iter_kernel_bank(X, feature_sets=sets, chunk_size=3))
    assert [s for s, _ in chunks] == [0, 3, 6]
    assert np.array_equal(np.concatenate([b for _, b in chunks]), B)
    out = np.empty_like(B)
    assert ntk.kernel_bank(X, feature_sets=sets, out=out) is out and np.array_equal(out, B)
    B32 = ntk.kernel_bank(X, feature_sets=sets, dtype=np.float32)
    assert B32.dtype == np.float32 and np.allclose(B32, B, rtol=1e-6)
    w = np.linspace(0, 1, len(sets))
    assert np.allclose(ntk.weighted_kernel_sum(X, feature_sets=sets, weights=w), np.tensordot(w, B, 1), rtol=1e-12)


def test_bank_tic_tac_toe_shape():
    from tabular_trees.datasets import make_tic_tac_toe

    X, _ = make_tic_tac_toe(standardize=True)
    sets = ntk.all_feature_sets(9, 3)
    assert len(sets) == 129
    B = ntk.kernel_bank(X[:40], X[:25], feature_sets=sets)
    assert B.shape == (129, 40, 25) and np.all(np.isfinite(B))
    assert np.allclose(B[100], ntk.oblivious_ntk(X[:40], X[:25], features=sets[100]), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    data=st.lists(st.floats(-50, 50, allow_nan=False), min_size=6, max_size=6),
    alpha=st.floats(0.05, 20),
    beta=st.floats(0.0, 5),
)
def test_bank_finite_and_symmetric_for_extreme_inputs(data, alpha, beta):
    X = np.array(data).reshape(3, 2)
    B = ntk.kernel_bank(X, feature_sets=[(0,), (1, 0), (0, 0, 1)], alpha=alpha, beta=beta, mode="AAI")
    assert np.all(np.isfinite(B))
    # symmetric up to rounding (terms of mixed sign are summed, so compare with the kernel scale)
    assert np.allclose(B, B.transpose(0, 2, 1), rtol=1e-12, atol=1e-13 * np.abs(B).max())
    T, Td = ntk.node_expectations(X, features=0, alpha=alpha, beta=beta)
    assert np.all((T >= 0) & (T <= 0.5 + 1e-15)) and np.all(Td > 0)


# ------------------------------------------------------------------ trajectory
def test_trajectory_matches_ode_solution():
    from scipy.linalg import expm

    X = _data(6, 2)
    H = ntk.oblivious_ntk(X, features=(0, 1))
    Xe = _data(3, 2, seed=9)
    He = ntk.oblivious_ntk(Xe, X, features=(0, 1))
    y = np.random.default_rng(1).normal(size=6)
    F = ntk.ntk_trajectory(H, He, y, learning_rate=0.1, steps=[0, 5, 50])
    for k, t in enumerate([0, 5, 50]):
        ref = He @ np.linalg.solve(H, (np.eye(6) - expm(-0.1 * H * t)) @ y)
        assert np.allclose(F[k], ref, atol=1e-9)
    Fd = ntk.ntk_trajectory(H, He, y, learning_rate=0.1, steps=[7], discrete=True)
    ref = He @ np.linalg.solve(H, (np.eye(6) - np.linalg.matrix_power(np.eye(6) - 0.1 * H, 7)) @ y)
    assert np.allclose(Fd[0], ref, atol=1e-9)
    Fm = ntk.ntk_trajectory(H, He, y, learning_rate=0.6, steps=[5], reduction="mean")
    assert np.allclose(Fm, ntk.ntk_trajectory(H, He, y, learning_rate=0.1, steps=[5]), atol=1e-12)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda X: ntk.oblique_ntk(np.array([[np.nan, 1.0]]), depth=2), ValueError, "NaN|infinity"),
        (lambda X: ntk.oblique_ntk(X, np.ones((2, 3)), depth=2), ValueError, "features"),
        (lambda X: ntk.oblique_ntk(X, depth=0), ValueError, "depth"),
        (lambda X: ntk.oblique_ntk(X, depth=2, alpha=0.0), ValueError, "alpha"),
        (lambda X: ntk.oblique_ntk(X, depth=2, alpha=-1.0), ValueError, "alpha"),
        (lambda X: ntk.oblique_ntk(X, depth=2, beta=-0.1), ValueError, "beta"),
        (lambda X: ntk.oblivious_ntk(X, features=(0, 2)), ValueError, "out of range"),
        (lambda X: ntk.oblivious_ntk(X, features=(-1,)), ValueError, "out of range"),
        (lambda X: ntk.oblivious_ntk(X, features=()), ValueError, "empty"),
        (lambda X: ntk.oblivious_ntk(X, features=(0.5,)), TypeError, "int"),
        (lambda X: ntk.oblivious_ntk(X, features=(0,), mode="aaa"), ValueError, "mode"),
        (lambda X: ntk.axis_aligned_ntk(X, paths=[(0,), ()]), ValueError, "empty"),
        (lambda X: ntk.axis_aligned_ntk(X, paths=[]), ValueError, "empty"),
        (lambda X: ntk.axis_aligned_ntk(X, paths=[((0, 0),)]), ValueError, "repeats"),
        (lambda X: ntk.kernel_bank(X, feature_sets=[(0,), (5,)]), ValueError, "out of range"),
        (lambda X: ntk.kernel_bank(X, feature_sets=[()]), ValueError, "empty"),
        (lambda X: ntk.kernel_bank(X, feature_sets=[]), ValueError, "empty"),
        (lambda X: ntk.kernel_bank(X, feature_sets=[(0,)], out=np.empty((1, 2, 2))), ValueError, "shape"),
        (lambda X: ntk.kernel_bank(X, feature_sets=[(0,)], dtype=np.int64), ValueError, "dtype"),
        (lambda X: ntk.kernel_bank(np.empty((0, 2)), feature_sets=[(0,)]), ValueError, "sample"),
        (lambda X: ntk.weighted_kernel_sum(X, feature_sets=[(0,)], weights=[-1.0]), ValueError, "non-negative"),
        (lambda X: ntk.mixture_ntk(X, architectures=[[(0,)]], weights=[1.0, 2.0]), ValueError, "weights"),
        (lambda X: ntk.tree_paths(None), ValueError, "leaf"),
        (lambda X: ntk.to_oblivious([(0,), ()]), ValueError, "empty"),
    ],
)
def test_bad_input_raises_clear_errors(call, exc, match):
    X = _data(4, 2)
    with pytest.raises(exc, match=match):
        call(X)


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
def test_bank_with_discrete_and_continuous_features(mode):
    """Discrete columns take the value-table path, continuous ones the direct path; both exact."""
    rng = np.random.default_rng(7)
    X = np.c_[rng.integers(-1, 2, 40), rng.normal(size=40), rng.integers(0, 2, 40) * 1.5]
    Y = np.c_[rng.integers(-1, 2, 15), rng.normal(size=15), rng.integers(0, 2, 15) * 1.5]
    sets = ntk.all_feature_sets(3, 3) + [(0, 0), (2, 1, 2)]
    for A, B_ in ((X, None), (X, Y)):
        B = ntk.kernel_bank(A, B_, feature_sets=sets, mode=mode)
        for k, fs in enumerate(sets):
            assert np.allclose(B[k], ntk.oblivious_ntk(A, B_, features=fs, mode=mode), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ structure
def test_compiled_code_takes_records_and_lives_in_the_kernel_module():
    """numba functions only in ntk._ntk_kernels, each cached and with at most 10 parameters; Python ones at most 12."""
    import importlib
    import inspect

    from numba.core.registry import CPUDispatcher

    for name in ("_ntk_kernels", "_closed_form", "_bank", "_trajectory"):
        mod = importlib.import_module(f"tabular_trees.ntk.{name}")
        for fname, f in vars(mod).items():
            if isinstance(f, CPUDispatcher):
                assert name == "_ntk_kernels", f"compiled {fname} outside tabular_trees.ntk._ntk_kernels"
                assert len(inspect.signature(f.py_func).parameters) <= 10, fname
                assert f._cache.__class__.__name__ != "NullCache", f"{fname} lacks cache=True"
            elif inspect.isfunction(f) and f.__module__ == mod.__name__:
                assert len(inspect.signature(f).parameters) <= 12, fname


def test_public_names_are_the_package_face():
    """Every public name is importable from tabular_trees.ntk and documented by its __all__."""
    import tabular_trees.ntk as face

    assert {"oblique_ntk", "oblivious_ntk", "axis_aligned_ntk", "kernel_bank"} <= set(face.__all__)
    for name in face.__all__:
        assert callable(getattr(face, name)), name


# ------------------------------------------------------------------ discrete trajectory: divergence refused
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_discrete_trajectory_refuses_a_step_above_two_over_lambda_max(reduction):
    X = np.random.default_rng(11).normal(size=(9, 3))
    H = ntk.oblique_ntk(X, depth=2)
    y = X[:, 0]
    lam_max = np.linalg.eigvalsh(H)[-1]
    bound = 2.0 / lam_max * (X.shape[0] if reduction == "mean" else 1.0)  # in units of learning_rate
    # just below the bound: finite and converging (slowly, the slowest direction oscillates)
    F = ntk.ntk_trajectory(H, H, y, learning_rate=0.99 * bound, steps=[0, 50], reduction=reduction, discrete=True)
    assert np.all(np.isfinite(F)) and np.allclose(F[0], 0.0)
    # just above: a ValueError naming learning_rate, lambda_max and the bound, before anything is computed
    with pytest.raises(ValueError, match="learning_rate") as info:
        ntk.ntk_trajectory(H, H, y, learning_rate=1.01 * bound, steps=[0, 50], reduction=reduction, discrete=True)
    msg = str(info.value)
    assert f"lambda_max = {lam_max:.4g}" in msg and f"learning_rate < {bound:.4g}" in msg, msg
    assert "discrete=False" in msg
    # the gradient-flow trajectory has no such bound
    Fc = ntk.ntk_trajectory(H, H, y, learning_rate=1e6 * bound, steps=[0, 50], reduction=reduction)
    assert np.allclose(Fc[1], y, atol=1e-6)


def test_discrete_trajectory_with_huge_learning_rate_raises_instead_of_returning_inf():
    # learning_rate=1e6 used to return inf/NaN outputs (with a warning only)
    H = np.array([[2.0, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError, match=r"learning_rate=1000000\.0 times lambda_max = 2\.207"):
        ntk.ntk_trajectory(H, H, [1.0, -1.0], learning_rate=1e6, steps=[400], discrete=True)
