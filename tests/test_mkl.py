"""Tests for tabular_trees.mkl.EasyMKL against a direct QP solve and MKLpy's SVC route."""

import numpy as np
import pytest
from scipy.optimize import minimize

from tabular_trees import mkl, ntk


def _problem(n=24, F=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = np.where(X[:, 0] * X[:, 1] > 0, "win", "lose")
    return X, y, ntk.kernel_bank(X, feature_sets=ntk.all_feature_sets(F, 2))


def _slsqp(Q, ypm):
    n = Q.shape[0]
    cons = [{"type": "eq", "fun": lambda g, c=c: g[ypm == c].sum() - 1.0, "jac": lambda g, c=c: (ypm == c) * 1.0}
            for c in (-1.0, 1.0)]
    x0 = np.where(ypm > 0, 1.0 / (ypm > 0).sum(), 1.0 / (ypm < 0).sum())
    res = minimize(lambda g: g @ Q @ g, x0, jac=lambda g: 2 * Q @ g, bounds=[(0, None)] * n, constraints=cons,
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 2000})
    assert res.success
    return res.x, res.fun


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [0.1, 0.5, 1.0])
def test_qp_and_weights_match_direct_qp_solve(seed, lam):
    X, y, B = _problem(seed=seed)
    model = mkl.EasyMKL(lam=lam).fit(B, y)
    ypm = np.where(y == model.classes_[1], 1.0, -1.0)
    Kl = (1 - lam) * B.sum(0) + lam * np.eye(len(y))
    Q = Kl * np.outer(ypm, ypm)
    g_ref, f_ref = _slsqp(Q, ypm)
    assert model.solver_info_["objective"] == pytest.approx(f_ref, rel=1e-7)
    assert np.allclose(model.gamma_, g_ref, atol=1e-5)
    yg = ypm * g_ref
    d = np.array([yg @ K @ yg for K in B])
    assert np.allclose(model.weights_, d / d.sum(), atol=1e-6)
    assert np.all(model.weights_ >= 0) and model.weights_.sum() == pytest.approx(1.0)
    # per-class simplex constraints
    assert model.gamma_[ypm > 0].sum() == pytest.approx(1.0) and model.gamma_[ypm < 0].sum() == pytest.approx(1.0)


def test_svc_route_agrees_with_smo():
    _, y, B = _problem(n=40, seed=4)
    a = mkl.EasyMKL(solver="smo").fit(B, y)
    b = mkl.EasyMKL(solver="svc").fit(B, y)
    assert np.allclose(a.weights_, b.weights_, atol=1e-4)


def test_weights_pick_informative_kernel_and_predict():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 1] > 0).astype(int)
    B = ntk.kernel_bank(X, feature_sets=[(0,), (1,), (2,)])
    model = mkl.EasyMKL().fit(B, y)
    assert np.argmax(model.weights_) == 1
    Xt = rng.normal(size=(30, 3))
    Bt = ntk.kernel_bank(Xt, X, feature_sets=[(0,), (1,), (2,)])
    acc = np.mean(model.predict(Bt) == (Xt[:, 1] > 0))
    assert acc > 0.85
    assert model.decision_function(Bt).shape == (30,)


def test_label_encoding_invariance():
    _, y, B = _problem(seed=5)
    a = mkl.EasyMKL().fit(B, y)
    flipped = np.where(y == "win", "lose", "win")
    b = mkl.EasyMKL().fit(B, flipped)
    assert np.allclose(a.weights_, b.weights_, atol=1e-10)
    assert list(a.classes_) == ["lose", "win"]


def test_single_kernel_gets_weight_one_and_params():
    _, y, B = _problem(seed=6)
    m = mkl.EasyMKL(lam=0.3).fit(B[:1], y)
    assert m.weights_.tolist() == [1.0]
    assert m.get_params()["lam"] == 0.3


@pytest.mark.parametrize(
    "kernels,y,kwargs,exc,match",
    [
        (np.ones((2, 3, 4)), [0, 1, 0], {}, ValueError, "square"),
        (np.full((1, 3, 3), np.nan), [0, 1, 0], {}, ValueError, "NaN"),
        (np.array([[[1.0, 2.0], [0.0, 1.0]]]), [0, 1], {}, ValueError, "symmetric"),
        (np.eye(3)[None], [0, 1, 2], {}, ValueError, "binary"),
        (np.eye(3)[None], [0, 0, 0], {}, ValueError, "class"),
        (np.eye(3)[None], [0, 1], {}, ValueError, "samples"),
        (np.eye(3)[None], [0, 1, 0], {"lam": 1.5}, ValueError, "lam"),
        (np.eye(3)[None], [0, 1, 0], {"solver": "cvxopt"}, ValueError, "solver"),
        (np.ones((1, 2, 2, 2)), [0, 1], {}, ValueError, "shape"),
    ],
)
def test_bad_input(kernels, y, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        mkl.EasyMKL(**kwargs).fit(kernels, y)


def test_predict_shape_checks():
    _, y, B = _problem(seed=7)
    m = mkl.EasyMKL().fit(B, y)
    with pytest.raises(ValueError, match="columns|shape"):
        m.predict(B[:, :5, :5])
    with pytest.raises(ValueError, match="expected"):
        m.predict(B[:2, :5, :])


def test_passes_sklearn_checks_as_a_pairwise_estimator():
    from sklearn.utils.estimator_checks import check_estimator

    est = mkl.EasyMKL()
    assert est.__sklearn_tags__().input_tags.pairwise
    check_estimator(est)


def test_not_fitted_error_before_fit():
    from sklearn.exceptions import NotFittedError

    for method in ("predict", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(mkl.EasyMKL(), method)(np.eye(3)[None])


def test_svc_solver_with_lam_zero_on_overlapping_classes_does_not_hang():
    # two identical points with different labels: the hulls intersect, libsvm with C=1e7 and no
    # ridge used to iterate without end; now it either converges or says why, in bounded time
    import time

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (rng.random(60) < 0.5).astype(int)
    K = (X @ X.T)[None]
    t0 = time.perf_counter()
    try:
        m = mkl.EasyMKL(lam=0.0, solver="svc").fit(K, y)
        assert np.isclose(m.weights_.sum(), 1.0)
    except ValueError as exc:
        assert "solver='smo'" in str(exc)
    assert time.perf_counter() - t0 < 60
    # the exact solver handles it: the hulls intersect, so the QP optimum is 0
    g, info = mkl.solve_margin_qp(K[0], np.where(y == 1, 1, -1))
    assert info["objective"] < 1e-8 * np.trace(K[0])


@pytest.mark.parametrize(
    "K,y,match",
    [
        (np.full((3, 3), np.nan), [1, -1, 1], "NaN"),
        (np.eye(3), [0, 1, 0], "-1 and \\+1"),
        (np.eye(3), [1, 1, 1], "both"),
        (np.eye(3), [1, -1], "samples"),
        (np.ones((2, 3)), [1, -1], "square"),
    ],
)
def test_solve_margin_qp_rejects_bad_input(K, y, match):
    with pytest.raises(ValueError, match=match):
        mkl.solve_margin_qp(K, y)
