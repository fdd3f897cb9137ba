"""Tests of tabular_trees.tree against independent truth.

* Fitted trees are compared array by array with scikit-learn's DecisionTreeRegressor /
  DecisionTreeClassifier (same data, settings and integer random_state): structure,
  features and thresholds exactly, values and impurities to 1e-12 (they are in fact
  bit-for-bit equal), predictions. Data with exact ties (iris, digits, diabetes) are
  included deliberately: the estimators replicate scikit-learn's random feature order,
  so even tie-breaking agrees for the same integer random_state.
* node_impurity against closed forms, split_scan against a brute-force Python loop,
  best_split against brute force under hypothesis and against scikit-learn's root split.
* scikit-learn's estimator checks, and bad input everywhere.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from tabular_trees.datasets import make_sine
from tabular_trees.tree import (
    CARTClassifier,
    CARTRegressor,
    Split,
    best_split,
    node_impurity,
    split_scan,
)

DEPTHS = [1, 2, 3, 5, None]


# --------------------------------------------------------------------------- data
def _continuous_regression(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, -1] * X[:, d // 2] + 0.3 * rng.normal(size=n)
    return X, y


def _regression_sets():
    X_sine, y_sine = make_sine(400, random_state=0)
    X_diab, y_diab = load_diabetes(return_X_y=True)
    return {
        "continuous": _continuous_regression(),
        "sine": (X_sine, y_sine),
        "diabetes": (X_diab, y_diab),
    }


def _classification_sets():
    X_cont, y_cont = _continuous_regression(seed=1)
    y3 = np.digitize(y_cont, np.quantile(y_cont, [1 / 3, 2 / 3]))
    X_dig, y_dig = load_digits(return_X_y=True)
    return {
        "continuous_3class": (X_cont, y3),
        "iris": load_iris(return_X_y=True),
        "breast_cancer": load_breast_cancer(return_X_y=True),
        "wine": load_wine(return_X_y=True),
        "digits_500": (X_dig[:500], y_dig[:500]),
    }


REG = _regression_sets()
CLF = _classification_sets()


def assert_same_tree(ours, theirs):
    """Our fitted tree equals scikit-learn's, node for node (also used by tests/test_tree_missing.py)."""
    a, b = ours.tree_, theirs.tree_
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.children_right, b.children_right)
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)  # exact equality, +inf included
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    split = b.children_left != -1
    # scikit-learn's flag is meaningful only at split nodes (ours is 0 at leaves)
    np.testing.assert_array_equal(a.missing_go_to_left[split], b.missing_go_to_left[split])
    assert not a.missing_go_to_left[~split].any()
    assert a.value.shape == b.value.shape
    # the sums are accumulated in the same order, so values agree to the last bit in practice;
    # 1e-12 leaves room for a compiler that fuses a multiply-add differently
    np.testing.assert_allclose(a.value, b.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=0, atol=1e-12)
    assert ours.get_depth() == theirs.get_depth()
    assert ours.get_n_leaves() == theirs.get_n_leaves()


# --------------------------------------------------------------------------- identity with scikit-learn
@pytest.mark.parametrize("name", list(REG))
@pytest.mark.parametrize("max_depth", DEPTHS)
def test_regressor_equals_sklearn(name, max_depth):
    X, y = REG[name]
    ours = CARTRegressor(max_depth=max_depth, random_state=0).fit(X, y)
    theirs = DecisionTreeRegressor(max_depth=max_depth, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)
    Xq = X[::3] + 0.01  # also points that are not training points
    for Z in (X, Xq):
        np.testing.assert_allclose(ours.predict(Z), theirs.predict(Z), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ours.apply(Z), theirs.apply(Z))
        assert (ours.decision_path(Z) != theirs.decision_path(Z)).nnz == 0


@pytest.mark.parametrize("name", list(CLF))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", DEPTHS)
def test_classifier_equals_sklearn(name, criterion, max_depth):
    X, y = CLF[name]
    ours = CARTClassifier(criterion=criterion, max_depth=max_depth, random_state=0).fit(X, y)
    theirs = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_classes_ == theirs.n_classes_
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)


SETTINGS = [
    dict(min_samples_leaf=5),
    dict(min_samples_leaf=3, max_depth=4),
    dict(min_samples_split=12),
    dict(min_samples_split=7, min_samples_leaf=4),
    dict(min_impurity_decrease=0.002),
    dict(min_impurity_decrease=0.02, max_depth=6),
]


@pytest.mark.parametrize("kw", SETTINGS)
@pytest.mark.parametrize("name", ["continuous", "diabetes"])
def test_regressor_settings_equal_sklearn(kw, name):
    X, y = REG[name]
    kw = dict(kw)
    if "min_impurity_decrease" in kw:  # scale to the target's variance
        kw["min_impurity_decrease"] *= float(np.var(y))
    assert_same_tree(
        CARTRegressor(random_state=1, **kw).fit(X, y), DecisionTreeRegressor(random_state=1, **kw).fit(X, y)
    )


@pytest.mark.parametrize("kw", SETTINGS)
@pytest.mark.parametrize("name", ["breast_cancer", "iris"])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_settings_equal_sklearn(kw, name, criterion):
    X, y = CLF[name]
    ours = CARTClassifier(criterion=criterion, random_state=2, **kw).fit(X, y)
    theirs = DecisionTreeClassifier(criterion=criterion, random_state=2, **kw).fit(X, y)
    assert_same_tree(ours, theirs)


@pytest.mark.parametrize("seed", range(6))
def test_ties_between_features_break_like_sklearn(seed):
    """A duplicated column ties exactly at every split: the winner depends on random_state."""
    X, y = _continuous_regression(n=120, d=2, seed=seed)
    X = np.column_stack([X[:, 0], X[:, 0], X[:, 1]])
    ours = CARTRegressor(max_depth=3, random_state=seed).fit(X, y)
    theirs = DecisionTreeRegressor(max_depth=3, random_state=seed).fit(X, y)
    assert_same_tree(ours, theirs)


def test_ties_do_depend_on_random_state():
    """Guard for the previous test: scikit-learn's tie winner really changes with the seed."""
    X, y = _continuous_regression(n=120, d=1, seed=0)
    X = np.column_stack([X[:, 0], X[:, 0]])
    roots = {DecisionTreeRegressor(max_depth=1, random_state=s).fit(X, y).tree_.feature[0] for s in range(20)}
    assert roots == {0, 1}
    ours = {CARTRegressor(max_depth=1, random_state=s).fit(X, y).tree_.feature[0] for s in range(20)}
    assert ours == {0, 1}


def test_default_random_state_uses_numpy_global_generator_like_sklearn():
    """random_state=None: both draw the splitter seed from NumPy's global generator."""
    X, y = REG["continuous"]
    np.random.seed(123)
    ours = CARTRegressor().fit(X, y)
    np.random.seed(123)
    theirs = DecisionTreeRegressor().fit(X, y)
    assert_same_tree(ours, theirs)


def test_same_seed_same_tree_and_feature_importances():
    X, y = REG["diabetes"]
    a = CARTRegressor(random_state=3).fit(X, y)
    b = CARTRegressor(random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    theirs = DecisionTreeRegressor(random_state=3).fit(X, y)
    np.testing.assert_allclose(a.feature_importances_, theirs.feature_importances_, rtol=1e-10, atol=1e-12)


def test_string_labels_and_single_class():
    X, y = CLF["iris"]
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    ours = CARTClassifier(max_depth=2, random_state=0).fit(X, names)
    theirs = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, names)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    # a single class is accepted, as scikit-learn does: one leaf predicting it
    one = CARTClassifier().fit(X, np.full(X.shape[0], "a"))
    assert one.tree_.node_count == 1 and list(one.classes_) == ["a"]
    assert (one.predict(X) == "a").all() and np.all(one.predict_proba(X) == 1.0)


def test_tree_layout_conventions():
    X, y = REG["sine"]
    t = CARTRegressor(max_depth=3, random_state=0).fit(X, y).tree_
    leaf = t.children_left == -1
    assert np.all(t.children_right[leaf] == -1)
    assert np.all(t.feature[leaf] == -2) and np.all(t.threshold[leaf] == -2.0)
    # preorder, left child first: the left child of an internal node is the next node
    internal = np.flatnonzero(~leaf)
    assert np.all(t.children_left[internal] == internal + 1)
    # children partition their parent's samples
    assert np.all(
        t.n_node_samples[internal]
        == t.n_node_samples[t.children_left[internal]] + t.n_node_samples[t.children_right[internal]]
    )
    assert t.value.shape == (t.node_count, 1, 1)


def test_value_is_leaf_mean_and_fraction():
    X, y = REG["sine"]
    reg = CARTRegressor(max_depth=2, random_state=0).fit(X, y)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        assert math.isclose(reg.tree_.value[leaf, 0, 0], y[leaves == leaf].mean(), rel_tol=1e-12)
    Xc, yc = CLF["wine"]
    clf = CARTClassifier(max_depth=2, random_state=0).fit(Xc, yc)
    leaves = clf.apply(Xc)
    for leaf in np.unique(leaves):
        frac = np.bincount(yc[leaves == leaf], minlength=3) / np.sum(leaves == leaf)
        np.testing.assert_allclose(clf.tree_.value[leaf, 0], frac, rtol=0, atol=1e-15)


# --------------------------------------------------------------------------- node_impurity
def test_node_impurity_closed_forms():
    rng = np.random.default_rng(0)
    y = rng.normal(3.0, 2.0, size=50)
    assert math.isclose(node_impurity(y), float(np.var(y)), rel_tol=1e-12)
    assert node_impurity([5.0, 5.0, 5.0]) == 0.0
    labels = rng.integers(0, 4, size=200)
    p = np.bincount(labels) / labels.size
    assert math.isclose(node_impurity(labels, "gini"), 1 - np.sum(p**2), rel_tol=1e-12)
    assert math.isclose(node_impurity(labels, "entropy"), -np.sum(p * np.log2(p)), rel_tol=1e-12)
    assert node_impurity(["x", "y"], "entropy") == 1.0
    assert node_impurity(["x", "x"], "gini") == 0.0
    assert node_impurity([0.5, 1.5, 0.5, 1.5], "gini") == 0.5  # any labels, float ones too


def test_node_impurity_matches_sklearn_root_impurity():
    X, y = CLF["wine"]
    for crit in ("gini", "entropy"):
        root = DecisionTreeClassifier(criterion=crit, max_depth=1).fit(X, y).tree_.impurity[0]
        assert math.isclose(node_impurity(y, crit), root, rel_tol=1e-12)


# --------------------------------------------------------------------------- split_scan and best_split
def _impurity_bf(y, criterion):
    y = np.asarray(y)
    if criterion == "squared_error":
        return float(np.mean((y - y.mean()) ** 2))
    _, counts = np.unique(y, return_counts=True)
    p = counts / y.size
    return float(1 - np.sum(p**2)) if criterion == "gini" else float(-np.sum(p * np.log2(p)))


def _scan_bf(x, y, criterion, min_samples_leaf=1):
    """Brute force: every midpoint between distinct float32 values, decrease from scratch."""
    x32 = np.asarray(x, dtype=np.float32)
    y = np.asarray(y)
    values = np.unique(x32)
    n = len(y)
    parent = _impurity_bf(y, criterion)
    thresholds, decreases = [], []
    for a, b in zip(values[:-1], values[1:]):
        t = np.float64(a) / 2.0 + np.float64(b) / 2.0
        left = x32 <= t
        nl = int(left.sum())
        if nl < min_samples_leaf or n - nl < min_samples_leaf:
            continue
        dec = parent - nl / n * _impurity_bf(y[left], criterion) - (n - nl) / n * _impurity_bf(y[~left], criterion)
        thresholds.append(t)
        decreases.append(dec)
    return np.array(thresholds), np.array(decreases)


@pytest.mark.parametrize("criterion", ["squared_error", "gini", "entropy"])
@pytest.mark.parametrize("min_samples_leaf", [1, 4])
def test_split_scan_matches_brute_force(criterion, min_samples_leaf):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 15, size=60).astype(float) * 0.37  # many ties
    y = rng.normal(size=60) if criterion == "squared_error" else rng.integers(0, 3, size=60)
    t, d = split_scan(x, y, criterion, min_samples_leaf=min_samples_leaf)
    tb, db = _scan_bf(x, y, criterion, min_samples_leaf)
    np.testing.assert_array_equal(t, tb)
    np.testing.assert_allclose(d, db, rtol=1e-10, atol=1e-12)


def test_split_scan_constant_feature_and_example():
    t, d = split_scan([2.0, 2.0, 2.0], [1.0, 2.0, 3.0])
    assert t.size == 0 and d.size == 0
    t, d = split_scan([1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1], "gini")
    np.testing.assert_allclose(d, [1 / 6, 0.5, 1 / 6])


@pytest.mark.parametrize("criterion", ["squared_error", "gini", "entropy"])
def test_best_split_is_sklearn_root_split(criterion):
    X, y = REG["continuous"] if criterion == "squared_error" else CLF["continuous_3class"]
    s = best_split(X, y, criterion)
    Est = DecisionTreeRegressor if criterion == "squared_error" else DecisionTreeClassifier
    t = Est(criterion=criterion, max_depth=1).fit(X, y).tree_
    assert s.feature == t.feature[0] and s.threshold == t.threshold[0]
    assert (s.n_left, s.n_right) == (t.n_node_samples[1], t.n_node_samples[2])
    # for the root, the weighted improvement of scikit-learn equals the plain decrease
    decrease = t.impurity[0] - t.n_node_samples[1] / t.n_node_samples[0] * t.impurity[1] - (
        t.n_node_samples[2] / t.n_node_samples[0] * t.impurity[2]
    )
    assert math.isclose(s.decrease, decrease, rel_tol=1e-9)


def test_best_split_without_valid_split_returns_minus_one():
    s = best_split([[1.0, 3.0], [1.0, 3.0], [1.0, 3.0]], [1.0, 2.0, 3.0])
    assert isinstance(s, Split) and s.feature == -1 and np.isnan(s.threshold)
    assert (s.decrease, s.n_left, s.n_right) == (0.0, 0, 3)
    s = best_split([[0.0], [1.0], [2.0]], [0, 1, 0], "gini", min_samples_leaf=2)
    assert s.feature == -1


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(2, 25),
    d=st.integers(1, 3),
    criterion=st.sampled_from(["squared_error", "gini", "entropy"]),
    min_samples_leaf=st.integers(1, 4),
)
def test_best_split_property_equals_brute_force_max(data, n, d, criterion, min_samples_leaf):
    X = np.array(
        data.draw(st.lists(st.lists(st.integers(-4, 4), min_size=d, max_size=d), min_size=n, max_size=n)),
        dtype=float,
    )
    if criterion == "squared_error":
        y = np.array(data.draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n)))
    else:
        y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    s = best_split(X, y, criterion, min_samples_leaf=min_samples_leaf)
    scans = [_scan_bf(X[:, j], y, criterion, min_samples_leaf) for j in range(d)]
    best = [dec.max() for _, dec in scans if dec.size]
    if not best:
        assert s.feature == -1
        return
    assert s.feature >= 0
    assert math.isclose(s.decrease, max(best), rel_tol=1e-9, abs_tol=1e-9)
    # the returned split is one of the brute-force candidates of its feature, with that decrease
    t_bf, d_bf = scans[s.feature]
    k = int(np.flatnonzero(t_bf == s.threshold)[0])
    assert math.isclose(d_bf[k], s.decrease, rel_tol=1e-9, abs_tol=1e-9)
    assert s.n_left == int(np.sum(X[:, s.feature].astype(np.float32) <= s.threshold))
    assert s.n_left + s.n_right == n


# --------------------------------------------------------------------------- scikit-learn conventions
@parametrize_with_checks([CARTRegressor(), CARTClassifier()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- bad input
X_OK, Y_OK = _continuous_regression(n=20, d=3)
YC_OK = (Y_OK > 0).astype(int)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("Est, y", [(CARTRegressor, Y_OK), (CARTClassifier, YC_OK)])
def test_bad_X_in_fit(Est, y):
    X_nan = X_OK.copy()
    X_nan[0, 0] = np.nan
    X_inf = X_OK.copy()
    X_inf[1, 2] = np.inf
    # NaN marks a missing value and is routed like scikit-learn does (tests/test_tree_missing.py)
    assert np.all(np.isfinite(Est().fit(X_nan, y).predict(X_nan)))
    with pytest.raises(ValueError, match="infinity"):
        Est().fit(X_inf, y)
    with pytest.raises(ValueError, match="infinity"):  # too large for float32
        Est().fit(np.full((4, 1), 1e300), y[:4])
    with pytest.raises(ValueError, match="Reshape your data"):
        Est().fit(X_OK[:, 0], y)
    with pytest.raises(ValueError):
        Est().fit(np.empty((0, 3)), y[:0])
    with pytest.raises(ValueError, match="same length"):
        Est().fit(X_OK, y[:-1])
    with pytest.raises(ValueError, match="target y is None"):
        Est().fit(X_OK, None)


def test_bad_y():
    y = Y_OK.copy()
    y[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CARTRegressor().fit(X_OK, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        CARTClassifier().fit(X_OK, Y_OK)  # continuous target for a classifier
    with pytest.raises(ValueError, match="1-D"):
        CARTRegressor().fit(X_OK, np.column_stack([Y_OK, Y_OK]))
    with pytest.raises(TypeError, match="numbers"):
        CARTRegressor().fit(X_OK, np.array(["a"] * 20, dtype=object))


@pytest.mark.parametrize(
    "kw, exc",
    [
        (dict(min_samples_leaf=0), ValueError),
        (dict(min_samples_leaf=1.5), TypeError),
        (dict(min_samples_split=1), ValueError),
        (dict(max_depth=0), ValueError),
        (dict(max_depth=2.0), TypeError),
        (dict(min_impurity_decrease=-0.1), ValueError),
        (dict(min_impurity_decrease=np.nan), ValueError),
        (dict(random_state="seed"), TypeError),
        (dict(random_state=-1), ValueError),
    ],
)
def test_bad_hyperparameters(kw, exc):
    for est, y in ((CARTRegressor(**kw), Y_OK), (CARTClassifier(**kw), YC_OK)):
        with pytest.raises(exc):
            est.fit(X_OK, y)


def test_bad_criterion():
    with pytest.raises(ValueError, match="criterion"):
        CARTClassifier(criterion="foo").fit(X_OK, YC_OK)
    with pytest.raises(ValueError, match="criterion"):
        CARTClassifier(criterion="squared_error").fit(X_OK, YC_OK)
    with pytest.raises(ValueError, match="criterion"):
        node_impurity([1.0, 2.0], criterion="foo")
    with pytest.raises(TypeError, match="criterion"):
        split_scan([1.0, 2.0], [1.0, 2.0], criterion=None)
    with pytest.raises(ValueError, match="criterion"):
        best_split(X_OK, Y_OK, criterion="mse")


@pytest.mark.parametrize("Est, y", [(CARTRegressor, Y_OK), (CARTClassifier, YC_OK)])
def test_bad_X_in_predict(Est, y):
    est = Est(max_depth=2).fit(X_OK, y)
    with pytest.raises(ValueError, match="3 features"):
        est.predict(X_OK[:, :2])
    # rows with nothing known follow the missing-value directions to a leaf
    assert np.all(np.isfinite(est.predict(np.full((2, 3), np.nan))))
    with pytest.raises(ValueError, match="infinity"):
        est.predict(np.full((2, 3), np.inf))
    with pytest.raises(ValueError, match="Reshape your data"):
        est.apply(X_OK[0])
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        Est().predict(X_OK)


def test_bad_input_to_functions():
    with pytest.raises(ValueError, match="empty"):
        node_impurity([])
    with pytest.raises(ValueError, match="empty"):
        node_impurity([], "gini")
    with pytest.raises(ValueError, match="NaN"):
        node_impurity([1.0, np.nan])
    with pytest.raises(ValueError, match="NaN"):
        node_impurity([1.0, np.nan], "gini")
    with pytest.raises(ValueError, match="1-D"):
        node_impurity(np.ones((3, 2)))
    with pytest.raises(ValueError, match="single feature"):
        split_scan(np.ones((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match="empty"):
        split_scan([], [])
    with pytest.raises(ValueError, match="NaN"):
        split_scan([1.0, np.inf], [1.0, 2.0])
    with pytest.raises(ValueError, match="same length"):
        split_scan([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        split_scan([1.0, 2.0], [1.0, 2.0], min_samples_leaf=0)
    with pytest.raises(TypeError):
        split_scan(["a", "b"], [1.0, 2.0])
    with pytest.raises(ValueError, match="Reshape your data"):
        best_split([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        best_split(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="NaN"):
        best_split([[1.0], [np.nan]], [1.0, 2.0])
    with pytest.raises(ValueError, match="same length"):
        best_split([[1.0], [2.0]], [1.0])


@pytest.mark.parametrize("Est, y", [(CARTRegressor, Y_OK), (CARTClassifier, YC_OK)])
def test_X_is_validated_once(Est, y, monkeypatch):
    """fit and every prediction method check X once (validate_X), not once more before the compiled walk."""
    import sklearn.utils.validation as skv

    est = Est(max_depth=3, random_state=0).fit(X_OK, y)
    calls = []
    original = skv.check_array
    monkeypatch.setattr(skv, "check_array", lambda *a, **k: calls.append(1) or original(*a, **k))
    methods = [est.predict, est.apply, est.decision_path] + ([est.predict_proba] if Est is CARTClassifier else [])
    for method in methods:
        calls.clear()
        method(X_OK)
        assert len(calls) == 1, method.__name__
    calls.clear()
    Est(max_depth=3).fit(X_OK, y)
    assert len(calls) == 1


def test_compiled_kernels_take_few_parameters():
    """The kernels take named records (data, rules, work space, node), never more than 10 parameters."""
    import inspect

    import numba

    from tabular_trees import _tree_kernels

    kernels = {name: f for name, f in vars(_tree_kernels).items() if isinstance(f, numba.core.registry.CPUDispatcher)}
    assert "_node_split" in kernels and "_build_tree" in kernels
    for name, f in kernels.items():
        assert len(inspect.signature(f.py_func).parameters) <= 10, name
    assert len(inspect.signature(_tree_kernels._node_split.py_func).parameters) == 4
