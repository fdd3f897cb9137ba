"""Tests for tabular_trees.dte (decision tree embedding, Shen, Dong & Priebe 2025)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from tabular_trees.datasets import make_dte_mixture
from tabular_trees.dte import (
    DecisionTreeEmbedding,
    DTEClassifier,
    PseudoLinearDiscriminantAnalysis,
    leaf_intercept,
    quantile_bin_edges,
)


def _iris():
    return load_iris(return_X_y=True)


# ------------------------------------------------------------------ scikit-learn API
@parametrize_with_checks(
    [
        DecisionTreeEmbedding(random_state=0),
        DecisionTreeEmbedding(n_trees=3, embedding="rbf", n_bins=None, random_state=0),
        DTEClassifier(random_state=0),
        DTEClassifier(n_trees=3, embedding="distance", merge_leaves=False, random_state=0),
        PseudoLinearDiscriminantAnalysis(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ embedding = X W^T + 1 b^T
def _brute_force_merge(tree, X_tree, codes, n_classes):
    """Independent recursive implementation of MATLAB's MergeLeaves rule.

    Returns the list of merged leaves, each as the set of original sklearn leaf ids it contains.
    """
    t = tree.tree_
    leaf_of_sample = tree.apply(X_tree)

    def rec(node):
        # returns (is_leaf_after_merge, list_of_groups, error_count)
        if t.children_left[node] == -1:
            idx = leaf_of_sample == node
            c = np.bincount(codes[idx], minlength=n_classes)
            return True, [{node}], int(c.sum() - c.max())
        L = rec(t.children_left[node])
        R = rec(t.children_right[node])
        reach = np.isin(leaf_of_sample, list(set().union(*L[1], *R[1])))
        c = np.bincount(codes[reach], minlength=n_classes)
        err = int(c.sum() - c.max())
        if L[0] and R[0] and L[2] + R[2] >= err:
            return True, [L[1][0] | R[1][0]], err
        return False, L[1] + R[1], err

    return rec(0)[1]


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("n_bins", [30, None])
def test_embedding_is_affine_in_leaf_means(merge, n_bins):
    X, y = load_wine(return_X_y=True)
    emb = DecisionTreeEmbedding(merge_leaves=merge, n_bins=n_bins, random_state=3).fit(X, y)
    tree = emb.trees_[0]
    Xt = X if n_bins is None else np.column_stack(
        [np.searchsorted(e, X[:, f], side="right") for f, e in enumerate(emb.bin_edges_[0])]
    )
    if merge:
        groups = _brute_force_merge(tree, Xt, y, 3)
    else:
        groups = [{leaf} for leaf in np.flatnonzero(tree.tree_.children_left == -1)]
    leaf = tree.apply(Xt)
    W = np.array([X[np.isin(leaf, list(g))].mean(axis=0) for g in groups])
    # same set of rows (order of leaves is an implementation detail)
    order = np.lexsort(W.T)
    order_emb = np.lexsort(emb.leaf_means_.T)
    np.testing.assert_allclose(emb.leaf_means_[order_emb], W[order], rtol=1e-12)
    b = np.einsum("ij,ij->i", W, W)  # the paper's Sec. 2.1 intercept
    Z_direct = X @ W[order].T + b[order]
    np.testing.assert_allclose(emb.transform(X)[:, order_emb], Z_direct, rtol=1e-12)


def test_paper_leaf_counts_reproduced():
    # Table I of the paper lists m = 3 leaves for iris and m = 4 for wine (one tree on the full data,
    # fitctree NumBins=30, MinLeafSize=10, default MergeLeaves): our faithful settings give the same m.
    for seed in range(3):
        assert DecisionTreeEmbedding(random_state=seed).fit(*load_iris(return_X_y=True)).n_leaves_[0] == 3
        assert DecisionTreeEmbedding(random_state=seed).fit(*load_wine(return_X_y=True)).n_leaves_[0] == 4
    # without leaf merging the trees are larger
    assert DecisionTreeEmbedding(merge_leaves=False, random_state=0).fit(*_iris()).n_leaves_[0] > 3


def test_bins_are_thresholds_at_bin_edges():
    X, y = load_wine(return_X_y=True)
    emb = DecisionTreeEmbedding(n_bins=30, merge_leaves=False, random_state=0).fit(X, y)
    edges = emb.bin_edges_[0]
    t = emb.trees_[0].tree_
    rng = np.random.default_rng(0)
    Xnew = X[rng.integers(0, len(X), 200)] * rng.uniform(0.9, 1.1, size=(200, X.shape[1]))
    # route raw samples with "x < edge" rules in original units, compare with the binned tree
    node = np.zeros(len(Xnew), dtype=int)
    for _ in range(t.max_depth):
        internal = t.children_left[node] != -1
        f = t.feature[node]
        k = np.floor(t.threshold[node]).astype(int)  # bin index <= k goes left
        edge = np.array([edges[fi][ki] if fi >= 0 else 0.0 for fi, ki in zip(f, k)])
        go_left = Xnew[np.arange(len(Xnew)), np.maximum(f, 0)] < edge
        node = np.where(internal, np.where(go_left, t.children_left[node], t.children_right[node]), node)
    leaves = emb.apply(Xnew)[:, 0]
    col_of_node = {n: c for c, n in enumerate(np.flatnonzero(t.children_left == -1))}
    np.testing.assert_array_equal(leaves, [col_of_node[n] for n in node])


def test_quantile_bins_equiprobable():
    x = np.random.default_rng(1).normal(size=(3000, 2))
    edges = quantile_bin_edges(x, n_bins=30)
    for f in range(2):
        assert len(edges[f]) == 29
        counts = np.bincount(np.searchsorted(edges[f], x[:, f], side="right"), minlength=30)
        assert counts.min() >= 99 and counts.max() <= 101
    # a column with 3 distinct values: 3 occupied bins, in the order of the values
    z = np.repeat([-1.0, 0.0, 1.0], [10, 50, 40]).reshape(-1, 1)
    e = quantile_bin_edges(z, 30)[0]
    b = np.searchsorted(e, z[:, 0], side="right")
    assert len(np.unique(b)) == 3 and np.all(np.diff(b) >= 0) and b.min() == 0


def test_apply_and_leaf_statistics():
    X, y = make_dte_mixture(200, random_state=0)
    emb = DecisionTreeEmbedding(n_trees=3, random_state=0).fit(X, y)
    leaves = emb.apply(X)
    assert leaves.shape == (200, 3)
    offsets = np.concatenate([[0], np.cumsum(emb.n_leaves_)])
    for s in range(3):
        assert np.all((leaves[:, s] >= offsets[s]) & (leaves[:, s] < offsets[s + 1]))
    # the first tree is grown on the data itself: its leaf means are the group means of X
    for j in range(emb.n_leaves_[0]):
        np.testing.assert_allclose(emb.leaf_means_[j], X[leaves[:, 0] == j].mean(axis=0))
        counts = np.bincount(y[leaves[:, 0] == j], minlength=2)
        np.testing.assert_array_equal(emb.leaf_class_counts_[j], counts)
        assert counts.sum() >= 10
    assert emb.transform(X).shape[1] == emb.n_leaves_.sum() == emb.leaf_means_.shape[0]


def test_intercepts_and_nearest_mean_identity():
    W = np.array([[1.0, 2.0], [0.0, -3.0]])
    np.testing.assert_allclose(leaf_intercept(W, "paper"), [5.0, 9.0])
    np.testing.assert_allclose(leaf_intercept(W, "theorem"), [-5.0, -9.0])
    np.testing.assert_allclose(leaf_intercept(W, "nearest-mean"), [-2.5, -4.5])
    np.testing.assert_allclose(leaf_intercept(W, "none"), [0.0, 0.0])
    X, y = make_dte_mixture(300, random_state=1)
    emb = DecisionTreeEmbedding(intercept="nearest-mean", random_state=0).fit(X, y)
    d = ((X[:, None, :] - emb.leaf_means_[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(np.argmax(emb.transform(X), 1), np.argmin(d, 1))
    # with the paper's +||mu||^2 intercept the argmax is not the nearest mean in general
    emb_p = DecisionTreeEmbedding(intercept="paper", random_state=0).fit(X, y)
    assert np.mean(np.argmax(emb_p.transform(X), 1) == np.argmin(d, 1)) < 0.9


def test_nonlinear_embeddings_brute_force():
    X, y = _iris()
    e_d = DecisionTreeEmbedding(n_trees=2, embedding="distance", random_state=0).fit(X, y)
    e_r = DecisionTreeEmbedding(n_trees=2, embedding="rbf", gamma=0.7, random_state=0).fit(X, y)
    e_s = DecisionTreeEmbedding(n_trees=2, embedding="rbf", random_state=0).fit(X, y)
    W = e_d.leaf_means_
    D = np.sqrt(((X[:, None, :] - W[None]) ** 2).sum(-1))
    np.testing.assert_allclose(e_d.transform(X), D, atol=1e-10)
    np.testing.assert_allclose(e_r.transform(X), np.exp(-0.7 * D**2), atol=1e-12)
    assert e_s.gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()))


def test_determinism():
    X, y = load_wine(return_X_y=True)
    a = DecisionTreeEmbedding(n_trees=4, random_state=7).fit(X, y)
    b = DecisionTreeEmbedding(n_trees=4, random_state=7).fit(X, y)
    c = DecisionTreeEmbedding(n_trees=4, random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.leaf_means_, b.leaf_means_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert a.leaf_means_.shape != c.leaf_means_.shape or not np.array_equal(a.leaf_means_, c.leaf_means_)
    p1 = DTEClassifier(n_trees=3, random_state=5).fit(X, y).predict_proba(X)
    p2 = DTEClassifier(n_trees=3, random_state=5).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(p1, p2)
    # the first tree does not depend on the seed up to tie-breaking: its leaf count is stable
    assert a.n_leaves_[0] == c.n_leaves_[0]


# ------------------------------------------------------------------ LDA
def test_pseudolinear_lda_matches_sklearn_when_well_conditioned():
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ours = PseudoLinearDiscriminantAnalysis().fit(X, y)
    ref = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # closed form with the unbiased pooled covariance (MATLAB's; scikit-learn divides by n instead)
    K, n = 3, X.shape[0]
    mu = np.array([X[y == k].mean(0) for k in range(K)])
    S = sum((X[y == k] - mu[k]).T @ (X[y == k] - mu[k]) for k in range(K)) / (n - K)
    Si = np.linalg.inv(S)
    pri = np.bincount(y) / n
    delta = X @ Si @ mu.T - 0.5 * np.einsum("kj,jl,kl->k", mu, Si, mu) + np.log(pri)
    proba = np.exp(delta - delta.max(1, keepdims=True))
    proba /= proba.sum(1, keepdims=True)
    np.testing.assert_allclose(ours.predict_proba(X), proba, atol=1e-10)
    assert ours.rank_ == X.shape[1]
    # binary: decision_function is the log-odds of the second class
    Xb, yb = X[y < 2], y[y < 2]
    ob = PseudoLinearDiscriminantAnalysis().fit(Xb, yb)
    pb = ob.predict_proba(Xb)
    np.testing.assert_allclose(ob.decision_function(Xb), np.log(pb[:, 1] / pb[:, 0]), rtol=1e-8, atol=1e-8)
    ref_b = LinearDiscriminantAnalysis().fit(Xb, yb).decision_function(Xb)
    np.testing.assert_array_equal(ob.decision_function(Xb) > 0, ref_b > 0)


def test_pseudolinear_lda_ignores_null_directions():
    # duplicating a column (singular covariance) must not change predictions: pinv semantics
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    X2 = np.column_stack([X, X[:, :3] @ np.array([1.0, -2.0, 0.5])])
    a = PseudoLinearDiscriminantAnalysis().fit(X, y)
    b = PseudoLinearDiscriminantAnalysis().fit(X2, y)
    assert b.rank_ == X.shape[1]
    np.testing.assert_array_equal(a.predict(X), b.predict(X2))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X2), atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shift=st.floats(-50, 50),
    n_trees=st.integers(1, 4),
    intercept=st.sampled_from(["paper", "theorem", "nearest-mean", "none"]),
)
def test_dte_lda_is_lda_on_projection(seed, shift, n_trees, intercept):
    """LDA on Z = X W^T + 1 b^T predicts as LDA on X projected onto the span of the leaf means."""
    rng = np.random.default_rng(seed)
    n, p, K = 240, 4, 3
    centers = rng.normal(scale=2.0, size=(K, p))
    y = rng.integers(0, K, n)
    X = centers[y] + rng.normal(size=(n, p)) + shift
    Xte = centers[rng.integers(0, K, 80)] + rng.normal(size=(80, p)) + shift
    # the paper's raw map (the default divides X by its std first, which changes the span)
    clf = DTEClassifier(n_trees=n_trees, intercept=intercept, standardize=False, random_state=seed).fit(X, y)
    W = clf.embedding_.leaf_means_
    r = np.linalg.matrix_rank(W)
    V = np.linalg.svd(W, full_matrices=False)[2][:r].T
    ref = PseudoLinearDiscriminantAnalysis().fit(X @ V, y)
    np.testing.assert_array_equal(clf.predict(Xte), ref.predict(Xte @ V))
    if r == p:  # full column rank: exactly LDA on X
        np.testing.assert_array_equal(clf.predict(Xte), PseudoLinearDiscriminantAnalysis().fit(X, y).predict(Xte))
    base = DTEClassifier(n_trees=n_trees, intercept="none", standardize=False, random_state=seed).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(Xte), base.predict_proba(Xte), atol=1e-6)


def test_classifier_accuracy_and_string_labels():
    X, y = _iris()
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = DTEClassifier(n_trees=3, random_state=0).fit(X, names)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    pred = clf.predict(X)
    assert pred.dtype.kind == "U" and np.mean(pred == names) > 0.95
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], pred)
    assert clf.decision_function(X).shape == (150, 3)
    emb = DecisionTreeEmbedding(random_state=0).fit(X, names)
    assert set(emb.leaf_classes_) <= set(names)


# ------------------------------------------------------------------ bad input
_X_IRIS, _Y_IRIS = load_iris(return_X_y=True)
_X_NAN = np.where(np.arange(_X_IRIS.size).reshape(_X_IRIS.shape) == 13, np.nan, _X_IRIS)

#: (hyperparameters, X, y, error type, message) of a fit that must fail
BAD_FITS = [
    ({}, _X_IRIS, np.zeros(150), ValueError, "class"),
    ({}, _X_NAN, _Y_IRIS, ValueError, "NaN"),
    ({"n_trees": 0}, _X_IRIS, _Y_IRIS, ValueError, "n_trees"),
    ({"n_trees": 1.5}, _X_IRIS, _Y_IRIS, TypeError, "n_trees"),
    ({"min_samples_leaf": 151}, _X_IRIS, _Y_IRIS, ValueError, "min_samples_leaf"),
    ({"min_samples_leaf": 0}, _X_IRIS, _Y_IRIS, ValueError, "min_samples_leaf"),
    ({"intercept": "half"}, _X_IRIS, _Y_IRIS, ValueError, "intercept"),
    ({"embedding": "cosine"}, _X_IRIS, _Y_IRIS, ValueError, "embedding"),
    ({"embedding": "rbf", "gamma": -1.0}, _X_IRIS, _Y_IRIS, ValueError, "gamma"),
    ({"n_bins": 1}, _X_IRIS, _Y_IRIS, ValueError, "n_bins"),
    ({}, _X_IRIS, _Y_IRIS[:-1], ValueError, "inconsistent numbers of samples"),
    ({}, _X_IRIS, _X_IRIS[:, 0], ValueError, "continuous"),
]


@pytest.mark.parametrize("Est", [DecisionTreeEmbedding, DTEClassifier])
@pytest.mark.parametrize("params, X, y, error, match", BAD_FITS)
def test_bad_fit(Est, params, X, y, error, match):
    with pytest.raises(error, match=match):
        Est(**params).fit(X, y)


@pytest.mark.parametrize("Est", [DecisionTreeEmbedding, DTEClassifier])
def test_predict_with_fewer_features(Est):
    fitted = Est(random_state=0).fit(_X_IRIS, _Y_IRIS)
    method = fitted.transform if Est is DecisionTreeEmbedding else fitted.predict
    with pytest.raises(ValueError, match="features"):
        method(_X_IRIS[:, :3])


def test_min_leaf_size_up_to_data_size_gives_single_leaf():
    X, y = _iris()
    emb = DecisionTreeEmbedding(min_samples_leaf=150).fit(X, y)
    assert emb.n_leaves_[0] == 1
    np.testing.assert_allclose(emb.leaf_means_[0], X.mean(0))
    # a single leaf: the embedding is one-dimensional and LDA on it still runs
    clf = DTEClassifier(min_samples_leaf=80, random_state=0).fit(X, y)
    assert clf.lda_.rank_ == 1 and clf.predict(X).shape == (150,)


def test_tree_matches_sklearn_settings():
    # without binning and merging, DTE's first tree is scikit-learn's CART with min_samples_leaf
    X, y = load_wine(return_X_y=True)
    emb = DecisionTreeEmbedding(n_bins=None, merge_leaves=False, random_state=0).fit(X, y)
    ref = DecisionTreeClassifier(min_samples_leaf=10, random_state=0).fit(X, y)
    assert emb.n_leaves_[0] == ref.get_n_leaves()
    # same partition: identical grouping of the training samples
    a, b = emb.apply(X)[:, 0], ref.apply(X)
    pairs = set(zip(a.tolist(), b.tolist()))
    assert len(pairs) == emb.n_leaves_[0]
