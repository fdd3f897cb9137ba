"""Tests for tabular_trees.boosting against closed forms, brute force, finite differences and XGBoost."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize_scalar
from sklearn.utils.estimator_checks import parametrize_with_checks

from tabular_trees.boosting import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    LogisticLoss,
    SoftmaxLoss,
    SquaredError,
    bin_data,
    build_histogram,
    compute_bin_edges,
    leaf_weight,
    split_gain,
)

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def _few_valued_data(n=120, p=3, levels=6, seed=0):
    """Features with few distinct values (so exact and histogram search coincide)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, p)).astype(float) + rng.normal(size=(1, p)) * 0.01
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + rng.normal(0, 0.3, n)
    return X, y


# --------------------------------------------------------------------------- formulas
@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=finite), finite)
def test_leaf_weight_is_shrunk_mean_residual_for_squared_error(y, f):
    # g_i = f - y_i, h_i = 1: w* = sum(y - f) / (n + lambda).
    g, h = SquaredError().gradient_hessian(y, np.full_like(y, f))
    assert leaf_weight(g.sum(), h.sum(), 0.0) == pytest.approx(np.mean(y - f), abs=1e-9)
    assert leaf_weight(g.sum(), h.sum(), 2.5) == pytest.approx(np.sum(y - f) / (y.size + 2.5), abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.integers(2, 30), elements=finite), st.data())
def test_split_gain_is_half_sse_reduction_for_squared_error(r, data):
    # With h = 1 and lambda = 0 the gain is the drop of half the sum of squared
    # residuals when one constant is replaced by two (brute force).
    k = data.draw(st.integers(1, r.size - 1))
    left, right = r[:k], r[k:]

    def half_sse(a):
        return 0.5 * np.sum((a - a.mean()) ** 2)

    expected = half_sse(r) - half_sse(left) - half_sse(right)
    # Gradients at f = 0 are -r.
    got = split_gain(-left.sum(), left.size, -right.sum(), right.size, reg_lambda=0.0)
    assert got == pytest.approx(expected, abs=1e-7 * (1 + np.sum(r**2)))
    assert split_gain(-left.sum(), left.size, -right.sum(), right.size, 0.0, gamma=0.7) == pytest.approx(
        got - 0.7, abs=1e-7 * (1 + np.sum(r**2))
    )


def test_leaf_weight_minimises_second_order_objective():
    G, H, lam = -3.2, 4.0, 1.5
    res = minimize_scalar(lambda w: G * w + 0.5 * (H + lam) * w**2)
    assert leaf_weight(G, H, lam) == pytest.approx(res.x, rel=1e-6)
    np.testing.assert_allclose(leaf_weight(np.array([G, 1.0]), np.array([H, 1.0]), lam), [G / -(H + lam), -0.4])


# --------------------------------------------------------------------------- losses
def _fd(fun, x, eps=1e-6):
    return (fun(x + eps) - fun(x - eps)) / (2 * eps)


@pytest.mark.parametrize("loss,y", [(SquaredError(), np.array([0.3, -1.2, 2.0])),
                                    (LogisticLoss(), np.array([0.0, 1.0, 1.0]))])
def test_gradient_hessian_match_finite_differences(loss, y):
    f = np.array([0.4, -2.0, 3.5])
    g, h = loss.gradient_hessian(y, f)
    np.testing.assert_allclose(g, _fd(lambda t: loss.loss(y, t), f), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h, _fd(lambda t: loss.gradient_hessian(y, t)[0], f), rtol=1e-6, atol=1e-8)


def test_softmax_gradient_and_diagonal_hessian_match_finite_differences():
    loss = SoftmaxLoss(3)
    y = np.array([0, 2, 1])
    f = np.array([[0.1, -0.5, 1.0], [2.0, 0.0, -1.0], [0.3, 0.3, 0.3]])
    g, h = loss.gradient_hessian(y, f)
    eps = 1e-6
    for k in range(3):
        e = np.zeros(3)
        e[k] = eps
        fd_g = (loss.loss(y, f + e) - loss.loss(y, f - e)) / (2 * eps)
        fd_h = (loss.gradient_hessian(y, f + e)[0][:, k] - loss.gradient_hessian(y, f - e)[0][:, k]) / (2 * eps)
        np.testing.assert_allclose(g[:, k], fd_g, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(h[:, k], fd_h, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss,y", [(SquaredError(), np.array([0.3, -1.2, 2.0, 5.0])),
                                    (LogisticLoss(), np.array([0.0, 1.0, 1.0, 1.0, 0.0]))])
def test_base_score_minimises_loss_over_constants(loss, y):
    res = minimize_scalar(lambda c: np.mean(loss.loss(y, np.full(y.shape, c))))
    assert loss.base_score(y)[0] == pytest.approx(res.x, abs=1e-5)


# --------------------------------------------------------------------------- binning, histograms
def test_bin_edges_few_values_are_midpoints():
    X = np.array([[3.0, 1.0], [1.0, 1.0], [2.0, 1.0], [1.0, 1.0]])
    edges = compute_bin_edges(X, max_bins=3)
    np.testing.assert_allclose(edges[0], [1.5, 2.5])
    assert edges[1].size == 0
    np.testing.assert_array_equal(bin_data(X, edges), [[2, 0], [0, 0], [1, 0], [0, 0]])


def test_bin_edges_many_values_are_quantiles():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 2))
    edges = compute_bin_edges(X, max_bins=16)
    codes = bin_data(X, edges)
    assert codes.dtype == np.uint8
    for j in range(2):
        counts = np.bincount(codes[:, j], minlength=16)
        assert counts.size == 16 and np.all(np.abs(counts - 5000 / 16) <= 2)
    assert bin_data(X, compute_bin_edges(X, max_bins=1000)).dtype == np.uint16


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 40), st.integers(1, 3)), elements=finite),
       st.integers(2, 8))
def test_bin_codes_encode_threshold_rule(X, max_bins):
    edges = compute_bin_edges(X, max_bins)
    codes = bin_data(X, edges)
    for j, e in enumerate(edges):
        assert e.size <= max_bins - 1
        for b, cut in enumerate(e):
            np.testing.assert_array_equal(codes[:, j] <= b, X[:, j] <= cut)


def test_build_histogram_equals_bincount():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 7, size=(300, 4)).astype(np.uint8)
    g, h = rng.normal(size=300), rng.uniform(0.1, 1, size=300)
    rows = np.sort(rng.choice(300, 120, replace=False))
    hist = build_histogram(codes, g, h, sample_indices=rows, n_bins=9)
    for j in range(4):
        c = codes[rows, j]
        np.testing.assert_allclose(hist[j, :, 0], np.bincount(c, g[rows], minlength=9))
        np.testing.assert_allclose(hist[j, :, 1], np.bincount(c, h[rows], minlength=9))
        np.testing.assert_allclose(hist[j, :, 2], np.bincount(c, minlength=9))


# --------------------------------------------------------------------------- trees vs brute force
def test_first_split_and_leaves_match_brute_force():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 1] > 0.3, 2.0, -1.0) + 0.5 * X[:, 0] + rng.normal(0, 0.2, 200)
    lam, eta = 2.0, 0.3
    model = GradientBoostingRegressor(n_estimators=1, max_depth=2, learning_rate=eta, reg_lambda=lam,
                                      max_bins=32).fit(X, y)
    tree = model.trees_[0][0]
    g = np.full(200, y.mean()) - y
    best = (-np.inf, None, None)
    for j, cuts in enumerate(model.bin_edges_):
        for c in cuts:
            m = X[:, j] <= c
            if m.sum() < 1 or (~m).sum() < 1:
                continue
            gain = split_gain(g[m].sum(), m.sum(), g[~m].sum(), (~m).sum(), lam)
            if gain > best[0]:
                best = (gain, j, c)
    assert tree.feature[0] == best[1] and tree.threshold[0] == best[2]
    assert tree.gain[0] == pytest.approx(best[0], rel=1e-10)
    leaves = tree.apply(np.ascontiguousarray(X))
    for leaf in np.unique(leaves):
        m = leaves == leaf
        assert tree.value[leaf] == pytest.approx(eta * leaf_weight(g[m].sum(), m.sum(), lam), rel=1e-10)
        assert tree.n_node_samples[leaf] == m.sum()
    assert tree.depth == 2


def test_feature_importances_and_text():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = 3 * X[:, 2] + rng.normal(0, 0.1, 300)
    model = GradientBoostingRegressor(n_estimators=10, max_depth=2).fit(X, y)
    imp = model.feature_importances_
    total = np.zeros(3)
    for (tree,) in model.trees_:
        for node in range(tree.node_count):
            if tree.feature[node] >= 0:
                total[tree.feature[node]] += tree.gain[node]
    np.testing.assert_allclose(imp, total / total.sum())
    assert np.argmax(imp) == 2
    text = model.trees_[0][0].to_text(feature_names=["a", "b", "c"])
    assert text.splitlines()[0].startswith("c <= ") and text.count("leaf value=") == model.trees_[0][0].n_leaves


def test_training_mse_never_increases():
    X, y = _few_valued_data(n=300, levels=20)
    model = GradientBoostingRegressor(n_estimators=40, max_depth=3, learning_rate=0.5).fit(X, y)
    assert np.all(np.diff(model.train_score_) <= 1e-12)
    assert model.train_score_[-1] == pytest.approx(np.mean((model.predict(X) - y) ** 2))


# --------------------------------------------------------------------------- XGBoost
@pytest.fixture(scope="module")
def xgb():
    return pytest.importorskip("xgboost")


def _xgb_nodes(booster, tree=0):
    """Flatten one tree of an XGBoost JSON dump into {nodeid: node}."""
    root = json.loads(booster.get_dump(with_stats=True, dump_format="json")[tree])
    nodes, stack = {}, [root]
    while stack:
        nd = stack.pop()
        nodes[nd["nodeid"]] = nd
        stack.extend(nd.get("children", []))
    return nodes


@pytest.mark.parametrize("objective", ["reg:squarederror", "binary:logistic"])
def test_xgboost_stump_leaves_and_gain_follow_the_formulas(xgb, objective):
    X, y = _few_valued_data(n=80, seed=5)
    lam, eta = 1.7, 0.3
    if objective == "binary:logistic":
        y = (y > np.median(y)).astype(float)
        base_prob = 0.35
        margin = np.log(base_prob / (1 - base_prob))
        g, h = LogisticLoss().gradient_hessian(y, np.full(y.shape, margin))
        base = base_prob
    else:
        base = 0.4
        g, h = SquaredError().gradient_hessian(y, np.full(y.shape, base))
    model = xgb.XGBRegressor if objective.startswith("reg") else xgb.XGBClassifier
    est = model(n_estimators=1, max_depth=1, learning_rate=eta, reg_lambda=lam, base_score=base,
                tree_method="exact", n_jobs=1, min_child_weight=0.0, objective=objective).fit(X, y)
    nodes = _xgb_nodes(est.get_booster())
    root = nodes[0]
    j = int(root["split"].lstrip("f"))
    go_left = X[:, j] < root["split_condition"]  # XGBoost's rule: yes if x < split_condition
    leaf_l, leaf_r = nodes[root["yes"]], nodes[root["no"]]
    GL, HL, GR, HR = g[go_left].sum(), h[go_left].sum(), g[~go_left].sum(), h[~go_left].sum()
    assert leaf_l["leaf"] == pytest.approx(eta * leaf_weight(GL, HL, lam), rel=1e-5)
    assert leaf_r["leaf"] == pytest.approx(eta * leaf_weight(GR, HR, lam), rel=1e-5)
    assert leaf_l["cover"] == pytest.approx(HL, rel=1e-5) and leaf_r["cover"] == pytest.approx(HR, rel=1e-5)
    # XGBoost reports the bracket without the 1/2 (and without gamma): Gain = 2 * split_gain.
    assert root["gain"] == pytest.approx(2 * split_gain(GL, HL, GR, HR, lam), rel=1e-4)


@pytest.mark.parametrize("gamma", [0.0, 1.0])
@pytest.mark.parametrize("method", ["exact", "hist"])
def test_regressor_matches_xgboost(xgb, method, gamma):
    X, y = _few_valued_data(n=150, p=4, seed=7)
    kw = dict(n_estimators=6, max_depth=3, learning_rate=0.3, reg_lambda=1.5, min_child_weight=1.0)
    ours = GradientBoostingRegressor(gamma=gamma, **kw).fit(X, y)
    theirs = xgb.XGBRegressor(gamma=2 * gamma, base_score=float(y.mean()), tree_method=method, max_bin=256,
                              n_jobs=1, **kw).fit(X, y)
    # XGBoost works in float32: agreement to float32 rounding, not 1e-12.
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=2e-6)
    n_nodes_xgb = [len(_xgb_nodes(theirs.get_booster(), t)) for t in range(6)]
    assert [t[0].node_count for t in ours.trees_] == n_nodes_xgb


def test_gamma_prestopping_matches_xgboost_hist_not_exact_on_xor(xgb):
    # Nearly balanced XOR: the root split is almost useless (gain ~ 0.008) but
    # its children's splits are strong. With gamma above the root gain we stop
    # at the root, as XGBoost's hist grower does; XGBoost's exact method grows
    # first and prunes bottom-up, so it keeps the weak root split.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 10, dtype=float)
    y = 4.0 * np.logical_xor(X[:, 0], X[:, 1])
    y[0] += 0.8
    kw = dict(n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=1.0, min_child_weight=1.0)
    ours = GradientBoostingRegressor(gamma=1.0, **kw).fit(X, y)
    assert ours.trees_[0][0].node_count == 1
    assert GradientBoostingRegressor(gamma=0.0, **kw).fit(X, y).trees_[0][0].node_count == 7
    counts = {}
    for method in ("hist", "exact"):
        est = xgb.XGBRegressor(gamma=2.0, base_score=float(y.mean()), tree_method=method, **kw).fit(X, y)
        counts[method] = len(_xgb_nodes(est.get_booster()))
    assert counts == {"hist": 1, "exact": 7}


def test_classifier_matches_xgboost_exact(xgb):
    X, y = _few_valued_data(n=150, p=4, seed=8)
    y = (y > np.median(y)).astype(int)
    kw = dict(n_estimators=5, max_depth=2, learning_rate=0.5, reg_lambda=1.0, min_child_weight=0.5)
    ours = GradientBoostingClassifier(**kw).fit(X, y)
    theirs = xgb.XGBClassifier(base_score=float(y.mean()), tree_method="exact", n_jobs=1, **kw).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X)[:, 1], theirs.predict_proba(X)[:, 1], atol=2e-6)
    assert ours.base_score_ == pytest.approx(np.log(y.mean() / (1 - y.mean())))


# --------------------------------------------------------------------------- early stopping, staging
def test_early_stopping_keeps_best_validation_iteration():
    rng = np.random.default_rng(11)
    X = rng.uniform(0, 6, size=(120, 1))
    y = np.sin(2 * X[:, 0]) + rng.normal(0, 0.8, 120)
    Xv = rng.uniform(0, 6, size=(120, 1))
    yv = np.sin(2 * Xv[:, 0]) + rng.normal(0, 0.8, 120)
    model = GradientBoostingRegressor(n_estimators=300, max_depth=3, learning_rate=0.3, early_stopping_rounds=10)
    model.fit(X, y, eval_set=(Xv, yv))
    vs = model.validation_score_
    assert model.best_iteration_ == int(np.argmin(vs))
    assert model.n_estimators_ == model.best_iteration_ + 1 < 300  # it overfits, so it stops
    assert vs.size == model.best_iteration_ + 1 + 10
    staged = list(model.staged_predict(Xv))
    assert len(staged) == model.n_estimators_
    assert np.mean((staged[-1] - yv) ** 2) == pytest.approx(vs.min())
    np.testing.assert_allclose(staged[-1], model.predict(Xv))
    full = GradientBoostingRegressor(n_estimators=vs.size, max_depth=3, learning_rate=0.3).fit(X, y)
    np.testing.assert_allclose([np.mean((p - yv) ** 2) for p in full.staged_predict(Xv)], vs)


def test_classifier_validation_fraction_is_stratified_and_reproducible():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    kw = dict(n_estimators=40, max_depth=2, validation_fraction=0.3, early_stopping_rounds=5, random_state=3)
    a = GradientBoostingClassifier(**kw).fit(X, y)
    b = GradientBoostingClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(a.validation_score_, b.validation_score_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.best_iteration_ == int(np.argmin(a.validation_score_))
    assert len(a.trees_[0]) == 3
    np.testing.assert_allclose(a.predict_proba(X).sum(axis=1), 1.0)
    assert a.score(X, y) > 0.9


def test_multiclass_first_round_leaves_follow_formula():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    lam, eta = 1.0, 0.5
    clf = GradientBoostingClassifier(n_estimators=1, max_depth=2, learning_rate=eta, reg_lambda=lam).fit(X, y)
    raw0 = np.tile(clf.base_score_, (150, 1))
    np.testing.assert_allclose(np.exp(clf.base_score_), [1 / 3] * 3)
    g, h = SoftmaxLoss(3).gradient_hessian(y, raw0)
    for k, tree in enumerate(clf.trees_[0]):
        leaves = tree.apply(np.ascontiguousarray(X))
        for leaf in np.unique(leaves):
            m = leaves == leaf
            assert tree.value[leaf] == pytest.approx(eta * leaf_weight(g[m, k].sum(), h[m, k].sum(), lam))


def test_deterministic_refit():
    X, y = _few_valued_data(n=200, levels=50, seed=2)
    a = GradientBoostingRegressor(n_estimators=20, max_depth=4, max_bins=16).fit(X, y).predict(X)
    b = GradientBoostingRegressor(n_estimators=20, max_depth=4, max_bins=16).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "params,match",
    [
        (dict(reg_lambda=-1.0), "reg_lambda"),
        (dict(learning_rate=0.0), "learning_rate"),
        (dict(learning_rate=1.5), "learning_rate"),
        (dict(max_bins=1), "max_bins"),
        (dict(max_bins=70000), "max_bins"),
        (dict(max_depth=0), "max_depth"),
        (dict(gamma=-0.1), "gamma"),
        (dict(min_child_weight=-1.0), "min_child_weight"),
        (dict(n_estimators=0), "n_estimators"),
        (dict(validation_fraction=1.0), "validation_fraction"),
        (dict(early_stopping_rounds=5), "validation set"),
        (dict(reg_lambda=0.0, min_child_weight=0.0), "reg_lambda"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y = _few_valued_data(n=30)
    with pytest.raises(ValueError, match=match):
        GradientBoostingRegressor(**params).fit(X, y)


def test_bad_data():
    X, y = _few_valued_data(n=30)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingRegressor().fit(Xn, y)
    with pytest.raises(TypeError, match="int"):
        GradientBoostingRegressor(max_depth=2.5).fit(X, y)
    with pytest.raises(ValueError, match="not both"):
        GradientBoostingRegressor(validation_fraction=0.2).fit(X, y, eval_set=(X, y))
    with pytest.raises(ValueError, match="not in the training classes"):
        GradientBoostingClassifier().fit(X, y > 0, eval_set=(X, np.full(30, 7)))
    with pytest.raises(ValueError, match="features"):
        GradientBoostingRegressor(n_estimators=2).fit(X, y).predict(X[:, :2])
    with pytest.raises(ValueError, match="H"):
        leaf_weight(1.0, -2.0, 1.0)
    with pytest.raises(ValueError, match="n_bins"):
        build_histogram(np.array([[3]], dtype=np.uint8), [1.0], [1.0], n_bins=2)
    with pytest.raises(ValueError, match="sample_indices"):
        build_histogram(np.array([[0]], dtype=np.uint8), [1.0], [1.0], sample_indices=np.array([4]))
    with pytest.raises(ValueError, match="strictly increasing"):
        bin_data(X[:, :1], [np.array([2.0, 1.0])])


@parametrize_with_checks([GradientBoostingRegressor(n_estimators=5), GradientBoostingClassifier(n_estimators=5)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- package structure
def test_public_names_come_from_the_package_and_their_modules():
    # one module per idea; every public name is importable from tabular_trees.boosting itself
    import importlib

    import tabular_trees.boosting as boosting

    homes = {"formulas": ["leaf_weight", "split_gain"], "losses": ["SquaredError", "LogisticLoss", "SoftmaxLoss"],
             "binning": ["compute_bin_edges", "bin_data", "build_histogram"], "tree": ["BoostedTree"],
             "estimators": ["GradientBoostingRegressor", "GradientBoostingClassifier"]}
    assert sorted(boosting.__all__) == sorted(n for names in homes.values() for n in names)
    for module, names in homes.items():
        mod = importlib.import_module(f"tabular_trees.boosting.{module}")
        for name in names:
            assert getattr(boosting, name) is getattr(mod, name)


def test_kernels_take_a_settings_record():
    import inspect

    from tabular_trees.boosting import _boosting_kernels as _kernels

    for name, fn in vars(_kernels).items():
        if hasattr(fn, "py_func"):
            assert len(inspect.signature(fn.py_func).parameters) <= 10, name
    assert "settings" in inspect.signature(_kernels.grow_tree.py_func).parameters


def test_leaf_weight_overflow_is_a_clear_error():
    # Before: leaf_weight(1e308, 1e-308, 0) returned -inf.
    with pytest.raises(ValueError, match="leaf_weight overflowed.*reg_lambda"):
        leaf_weight(1e308, 1e-308, 0)
    assert leaf_weight(1e308, 1.0, 0.0) == -1e308
