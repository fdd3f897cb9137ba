"""Missing values (NaN) in the CART estimators, against scikit-learn's trees as independent truth.

scikit-learn (>= 1.3) routes NaN natively in ``DecisionTreeRegressor`` / ``DecisionTreeClassifier``
(``splitter="best"``): per node and feature it tries the missing samples on both sides of every
threshold, plus the split "non-missing left, missing right" (threshold ``+inf``), and stores the
chosen side in ``tree_.missing_go_to_left``. ``CARTRegressor`` and ``CARTClassifier`` must grow the
same tree, node for node: structure, features, thresholds (exactly), missing-value directions,
sample counts, values, impurities, and the same predictions, leaves and decision paths on data with
NaN, including NaN that appears only at predict time.

Hypothesis draws the data and the NaN patterns: random holes, all-NaN columns, a column with NaN in
every row but one, NaN in every row of the training set (one column each), heavy ties (values on a
coarse grid, duplicated columns), and the settings (criterion, depth, leaf sizes, minimum impurity
decrease, random_state). More than 500 cases are drawn in total.
"""

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tabular_trees.tree import CARTClassifier, CARTRegressor, best_split, split_scan
from test_tree import assert_same_tree


# --------------------------------------------------------------------------- comparison
def record_events(theirs):
    """What a drawn case exercises (shown by ``pytest --hypothesis-show-statistics``)."""
    b = theirs.tree_
    event(f"split nodes: {'some' if b.node_count > 1 else 'none'}")
    event(f"missing go left somewhere: {bool(b.missing_go_to_left[b.children_left != -1].any())}")
    event(f"split 'missing vs non-missing' (threshold inf): {bool(np.isinf(b.threshold).any())}")


def assert_same_predictions(ours, theirs, Z):
    np.testing.assert_array_equal(ours.apply(Z), theirs.apply(Z))
    assert (ours.decision_path(Z) != theirs.decision_path(Z)).nnz == 0
    if hasattr(theirs, "predict_proba"):
        np.testing.assert_allclose(ours.predict_proba(Z), theirs.predict_proba(Z), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
    else:
        np.testing.assert_allclose(ours.predict(Z), theirs.predict(Z), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- strategies
PATTERNS = ["holes", "all_nan_column", "all_but_one", "every_row", "none"]


@st.composite
def nan_data(draw, classification):
    # sampled_from rather than integers(): hypothesis favours the smallest integers, and trees on
    # two samples are rarely informative; the list still includes tiny nodes
    n = draw(st.sampled_from([30, 13, 60, 8, 45, 3, 20, 80, 5, 2]))
    d = draw(st.sampled_from([3, 2, 4, 1]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    grid = draw(st.sampled_from([0, 2, 5]))  # 0: continuous values; else a coarse grid (many ties)
    X = rng.normal(size=(n, d))
    if grid:
        X = rng.integers(0, grid, size=(n, d)).astype(float)
    if d > 1 and draw(st.booleans()):
        X[:, -1] = X[:, 0]  # duplicated column: exact ties between features
    pattern = draw(st.sampled_from(PATTERNS))
    rate = draw(st.sampled_from([0.05, 0.2, 0.5, 0.9]))
    X[rng.random((n, d)) < rate] = np.nan
    j = draw(st.integers(0, d - 1))
    if pattern == "all_nan_column":
        X[:, j] = np.nan
    elif pattern == "all_but_one":
        X[:, j] = np.nan
        X[rng.integers(n), j] = rng.normal()
    elif pattern == "every_row":  # every row misses exactly one value (when d > 1)
        X = rng.normal(size=(n, d))
        X[np.arange(n), rng.integers(0, d, size=n)] = np.nan
    elif pattern == "none":
        X = rng.normal(size=(n, d))
    if classification:
        k = draw(st.sampled_from([1, 2, 2, 3, 3]))
        y = rng.integers(0, k, size=n)
        # labels that depend on missingness, so that the NaN side matters
        y[np.isnan(X[:, 0])] = (y[np.isnan(X[:, 0])] + 1) % max(k, 2)
    else:
        y = rng.normal(size=n) + 2.0 * np.isnan(X[:, 0])
        if draw(st.booleans()):
            y = np.round(y)  # tied targets
    # query points: training rows, perturbed rows and rows with fresh NaN holes
    Z = np.vstack([X, X + 0.01, np.where(rng.random((n, d)) < 0.4, np.nan, rng.normal(size=(n, d)))])
    return X, y, Z


def tree_settings(classification):
    return st.fixed_dictionaries(
        {
            "max_depth": st.sampled_from([None, 1, 2, 4]),
            "min_samples_leaf": st.sampled_from([1, 1, 2, 4]),
            "min_samples_split": st.sampled_from([2, 2, 5]),
            "min_impurity_decrease": st.sampled_from([0.0, 0.0, 0.0, 0.01]),
            "random_state": st.integers(0, 10_000),
            **({"criterion": st.sampled_from(["gini", "entropy"])} if classification else {}),
        }
    )


# --------------------------------------------------------------------------- identity with scikit-learn
def check_against_sklearn(Ours, Theirs, data, kw):
    """Fit both on a drawn data set; same tree, same predictions, leaves and paths on the query points."""
    X, y, Z = data
    ours = Ours(**kw).fit(X, y)
    theirs = Theirs(**kw).fit(X, y)
    record_events(theirs)
    assert_same_tree(ours, theirs)
    if hasattr(theirs, "classes_"):
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert_same_predictions(ours, theirs, Z)


@settings(max_examples=400)
@given(data=nan_data(classification=False), kw=tree_settings(False))
def test_regressor_with_nan_equals_sklearn(data, kw):
    check_against_sklearn(CARTRegressor, DecisionTreeRegressor, data, kw)


@settings(max_examples=400)
@given(data=nan_data(classification=True), kw=tree_settings(True))
def test_classifier_with_nan_equals_sklearn(data, kw):
    check_against_sklearn(CARTClassifier, DecisionTreeClassifier, data, kw)


@settings(max_examples=80)
@given(
    n=st.integers(2, 80),
    d=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    classification=st.booleans(),
    max_depth=st.sampled_from([None, 1, 3]),
)
def test_nan_only_at_predict_time_follows_the_larger_child(n, d, seed, classification, max_depth):
    # a tree fitted without NaN sends NaN to the child that received more training samples
    # (the right child on a tie), as scikit-learn's does
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, size=n) if classification else rng.normal(size=n)
    Ours, Theirs = (CARTClassifier, DecisionTreeClassifier) if classification else (CARTRegressor, DecisionTreeRegressor)
    ours = Ours(max_depth=max_depth, random_state=seed % 1000).fit(X, y)
    theirs = Theirs(max_depth=max_depth, random_state=seed % 1000).fit(X, y)
    assert_same_tree(ours, theirs)
    t = ours.tree_
    split = t.children_left != -1
    bigger_left = t.n_node_samples[t.children_left[split]] > t.n_node_samples[t.children_right[split]]
    np.testing.assert_array_equal(t.missing_go_to_left[split], bigger_left)
    Z = np.where(rng.random((3 * n, d)) < 0.5, np.nan, rng.normal(size=(3 * n, d)))
    Z[0] = np.nan  # a row with nothing known
    assert_same_predictions(ours, theirs, Z)


@pytest.mark.parametrize("name", ["diabetes", "breast_cancer"])
@pytest.mark.parametrize("rate", [0.05, 0.3])
def test_fully_grown_trees_on_real_data_with_holes_equal_sklearn(name, rate):
    # larger nodes than the drawn cases: the sort's quicksort and heapsort paths, deep trees
    from sklearn.datasets import load_breast_cancer, load_diabetes

    X, y = (load_diabetes if name == "diabetes" else load_breast_cancer)(return_X_y=True)
    rng = np.random.default_rng(7)
    X = np.where(rng.random(X.shape) < rate, np.nan, X)
    Ours, Theirs = (CARTRegressor, DecisionTreeRegressor) if name == "diabetes" else (CARTClassifier, DecisionTreeClassifier)
    for seed in (0, 1):
        ours = Ours(random_state=seed).fit(X, y)
        theirs = Theirs(random_state=seed).fit(X, y)
        assert ours.tree_.node_count > 30
        assert_same_tree(ours, theirs)
        Z = np.where(rng.random(X.shape) < 0.5, np.nan, X)
        assert_same_predictions(ours, theirs, Z)


# --------------------------------------------------------------------------- hand-checked cases
def test_missing_only_split_uses_infinite_threshold():
    # y depends only on whether x is missing: the best split is "non-missing left, NaN right"
    x = np.array([1.0, 2.0, 3.0, 4.0, np.nan, np.nan, np.nan])
    y = np.array([0.0, 0.0, 0.0, 0.0, 5.0, 5.0, 5.0])
    ours = CARTRegressor(random_state=0).fit(x[:, None], y)
    t = ours.tree_
    assert t.feature[0] == 0 and t.threshold[0] == np.inf and t.missing_go_to_left[0] == 0
    assert t.n_node_samples.tolist() == [7, 4, 3]
    np.testing.assert_array_equal(ours.predict([[np.nan], [2.5], [1e30]]), [5.0, 0.0, 0.0])
    assert_same_tree(ours, DecisionTreeRegressor(random_state=0).fit(x[:, None], y))


def test_missing_values_go_left_when_that_is_better():
    # the missing samples look like the small values: they join them on the left
    x = np.array([1.0, 2.0, np.nan, np.nan, 10.0, 11.0, 12.0])
    y = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    ours = CARTClassifier(random_state=0).fit(x[:, None], y)
    t = ours.tree_
    assert t.threshold[0] == 6.0 and t.missing_go_to_left[0] == 1
    assert t.n_node_samples[t.children_left[0]] == 4
    assert ours.predict([[np.nan]]).tolist() == [0.0]
    assert_same_tree(ours, DecisionTreeClassifier(random_state=0).fit(x[:, None], y))


def test_all_nan_column_is_never_split_on():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(50, np.nan), rng.normal(size=50), np.full(50, np.nan)])
    y = X[:, 1] + 0.1 * rng.normal(size=50)
    for seed in range(5):
        ours = CARTRegressor(random_state=seed).fit(X, y)
        t = ours.tree_
        assert set(t.feature[t.children_left != -1].tolist()) == {1}
        assert_same_tree(ours, DecisionTreeRegressor(random_state=seed).fit(X, y))
    # all features missing: the tree is a single leaf predicting the mean
    only_nan = CARTRegressor().fit(np.full((6, 2), np.nan), np.arange(6.0))
    assert only_nan.tree_.node_count == 1
    np.testing.assert_allclose(only_nan.predict([[1.0, np.nan]]), [2.5])


def test_constant_column_with_missing_values_is_splittable():
    # non-missing values all equal: the only split separates them from the missing ones
    x = np.array([3.0, 3.0, 3.0, np.nan, np.nan])
    y = np.array([1.0, 1.0, 1.0, 4.0, 4.0])
    t = CARTRegressor().fit(x[:, None], y).tree_
    assert t.node_count == 3 and t.threshold[0] == np.inf
    assert_same_tree(CARTRegressor(random_state=0).fit(x[:, None], y),
                     DecisionTreeRegressor(random_state=0).fit(x[:, None], y))


def test_trees_without_nan_are_unchanged_by_missing_support():
    # with no NaN anywhere the missing-value search is switched off: still scikit-learn's tree
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=300)
    ours = CARTRegressor(max_depth=6, random_state=0).fit(X, y)
    assert_same_tree(ours, DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y))
    assert_same_predictions(ours, DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y), X)


# --------------------------------------------------------------------------- what is still refused
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("Est, y", [(CARTRegressor, np.arange(6.0)), (CARTClassifier, np.arange(6) % 2)])
def test_infinity_is_still_refused(Est, y):
    X = np.array([[0.0], [1.0], [np.nan], [3.0], [4.0], [5.0]])
    Est().fit(X, y)  # NaN is fine
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Est().fit(X_inf, y)
    with pytest.raises(ValueError, match="infinity"):  # too large for float32
        Est().fit(np.where(np.isnan(X), 1e300, X), y)
    est = Est().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        est.predict(X_inf)
    with pytest.raises(ValueError, match="infinity"):
        est.tree_.apply(X_inf.astype(np.float32))


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_nan_in_y_is_still_refused():
    X = np.array([[0.0], [np.nan], [2.0]])
    with pytest.raises(ValueError, match="NaN"):
        CARTRegressor().fit(X, [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="NaN|missing"):
        CARTClassifier().fit(X, np.array([1.0, np.nan, 2.0]))


def test_split_helpers_refuse_nan_clearly():
    # the teaching functions scan complete features only; the estimators handle NaN
    with pytest.raises(ValueError, match="NaN"):
        split_scan([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        best_split([[1.0], [np.nan]], [1.0, 2.0])


def test_corrupted_missing_direction_array_is_refused():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    X[::5, 0] = np.nan
    tree = CARTRegressor(max_depth=3, random_state=0).fit(X, rng.normal(size=40)).tree_
    tree.missing_go_to_left = tree.missing_go_to_left[:1]
    with pytest.raises(ValueError, match="missing_go_to_left"):
        tree.apply(X.astype(np.float32))
