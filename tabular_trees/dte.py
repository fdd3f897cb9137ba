"""Decision tree embedding (DTE) by leaf means, after Shen, Dong & Priebe (2025).

A classification tree partitions the feature space into leaf regions
:math:`R_1, \\dots, R_m`. The training samples in each leaf have a mean
:math:`\\mu_j`; stacking the means as rows gives :math:`W \\in \\mathbb{R}^{m \\times p}`
and the embedding is the affine map

.. math:: Z = X W^\\top + \\mathbf{1} b^\\top ,

one coordinate per leaf. ``DTE-t`` concatenates the leaf means of ``t`` trees: the
first grown on the data, the others on bootstrap samples. The embedding is then fed
to linear discriminant analysis (LDA) with a pseudo-inverse of the pooled covariance,
as MATLAB's ``fitcdiscr(..., 'DiscrimType', 'pseudolinear')`` does in the paper.

Faithfulness to the paper's MATLAB set-up (``fitctree`` with ``NumBins=30``,
``MinLeafSize=10``, defaults otherwise):

* The tree is scikit-learn's CART (Gini), with ``min_samples_leaf`` as MATLAB's
  ``MinLeafSize`` (a split needs two leaves of that size, so MATLAB's
  ``MinParentSize = max(10, 2 * MinLeafSize)`` is implied).
* ``n_bins``: each feature is cut into at most ``n_bins`` equiprobable bins (empirical
  quantiles of the training column) and the tree is grown on the bin indices, so every
  split threshold is a bin edge, as with ``fitctree``'s ``NumBins``. Leaf means are
  computed on the *original* features.
* ``merge_leaves``: ``fitctree`` merges (by default, ``MergeLeaves='on'``) two sibling
  leaves whose summed resubstitution risk is not smaller than their parent's, i.e. a
  split that does not reduce the number of misclassified training samples. We apply
  the same rule bottom-up to the fitted scikit-learn tree. It changes the number of
  leaves ``m`` (and so the embedding), not the tree's own predictions.

The module also offers nonlinear anchor maps (``embedding="distance"`` or ``"rbf"``),
which are not in the paper: with the linear map, LDA on ``Z`` is LDA on the
projection of ``X`` onto the span of the leaf means (see the book's chapter 9).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from ._lda import SQUARES_X, PseudoLinearDiscriminantAnalysis, decision_from_scores, log_softmax, softmax
from ._validation import (
    Boolean,
    Integer,
    Options,
    RandomState,
    Real,
    as_class_target,
    as_float_matrix,
    check_finite_result,
    check_int,
    check_magnitude,
    check_option,
    check_params,
    check_seed,
    check_real,
    require_y,
    validate_X,
)

__all__ = [
    "DecisionTreeEmbedding",
    "DTEClassifier",
    "PseudoLinearDiscriminantAnalysis",
    "quantile_bin_edges",
    "leaf_intercept",
]

_INTERCEPTS = ("paper", "theorem", "nearest-mean", "none")
_EMBEDDINGS = ("linear", "distance", "rbf")


# ----------------------------------------------------------------------------- helpers
def quantile_bin_edges(X, n_bins=30):
    """Interior edges of at most ``n_bins`` equiprobable bins for each column of ``X``.

    The edges are the empirical quantiles at levels ``1/n_bins, ..., (n_bins-1)/n_bins``
    of each column, with duplicates removed (a column with few distinct values gets
    fewer bins), mimicking the equiprobable binning of MATLAB's ``fitctree(...,
    'NumBins', n_bins)``. A value ``x`` falls in bin ``k`` when
    ``edges[k-1] <= x < edges[k]`` (``numpy.searchsorted`` with ``side="right"``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite training data.
    n_bins : int, default=30
        Maximum number of bins per feature (at least 2).

    Returns
    -------
    edges : list of ndarray
        ``edges[f]`` is the sorted 1-D array of interior edges of feature ``f``
        (length at most ``n_bins - 1``).

    Examples
    --------
    >>> import numpy as np
    >>> edges = quantile_bin_edges(np.arange(10.0).reshape(-1, 1), n_bins=2)
    >>> edges[0]
    array([4.5])
    """
    return _quantile_edges(as_float_matrix(X, "X"), check_int(n_bins, "n_bins", min_val=2))


def _quantile_edges(X, n_bins):
    """:func:`quantile_bin_edges` of a validated float matrix."""
    levels = np.arange(1, n_bins) / n_bins
    edges = []
    for f in range(X.shape[1]):
        col = X[:, f]
        q = np.unique(np.quantile(col, levels))
        # An edge at the column minimum would leave the lowest bin empty: drop it.
        q = q[q > col.min()]
        edges.append(q)
    return edges


def _apply_bins(X, edges):
    """Bin indices (as float, for the tree) of ``X`` under per-feature ``edges``."""
    out = np.empty_like(X)
    for f, e in enumerate(edges):
        out[:, f] = np.searchsorted(e, X[:, f], side="right")
    return out


def leaf_intercept(W, kind="paper"):
    """Intercept vector ``b`` of the decision tree embedding for leaf means ``W``.

    Parameters
    ----------
    W : ndarray of shape (n_leaves, n_features)
        Leaf means, one per row.
    kind : {"paper", "theorem", "nearest-mean", "none"}, default="paper"
        ``"paper"``: ``b_j = +||mu_j||^2`` as written in the method section (Sec. 2.1) of
        Shen, Dong & Priebe; ``"theorem"``: ``b_j = -||mu_j||^2`` as written in their
        Theorem 1; ``"nearest-mean"``: ``b_j = -||mu_j||^2 / 2``, the choice for which
        ``argmax_j Z_j`` is the nearest leaf mean (the identity their proof of Theorem 2
        needs); ``"none"``: ``b = 0``.

    Returns
    -------
    b : ndarray of shape (n_leaves,)

    Examples
    --------
    >>> import numpy as np
    >>> leaf_intercept(np.array([[3.0, 4.0]]), "nearest-mean")
    array([-12.5])
    """
    check_option(kind, "kind", _INTERCEPTS)
    W = as_float_matrix(W, "W")
    with np.errstate(over="ignore"):
        sq = np.einsum("ij,ij->i", W, W)
    check_finite_result(sq, "||mu_j||^2", "W has values too large (near 1e154 or more); rescale the features.")
    factor = {"paper": 1.0, "theorem": -1.0, "nearest-mean": -0.5, "none": 0.0}[kind]
    return factor * sq


def _merged_leaves(tree, node_counts):
    """Map every node of a fitted sklearn tree to its leaf after MATLAB-style merging.

    ``node_counts[node]`` are the class counts of the training samples reaching the node.
    Two sibling leaves are merged into their parent when their summed number of
    misclassified training samples is not smaller than the parent's (MATLAB
    ``MergeLeaves='on'``); this is applied bottom-up, so merges can cascade.
    Returns ``leaf_of`` (node -> representative node id, -1 for nodes below a merge
    point are redirected to it) and the sorted list of representative leaf nodes.
    """
    left = tree.tree_.children_left
    right = tree.tree_.children_right
    n_nodes = left.shape[0]
    errors = node_counts.sum(axis=1) - node_counts.max(axis=1)
    is_leaf = left == -1
    # children always have larger ids than their parent in sklearn trees: reverse order is post-order-safe
    for node in range(n_nodes - 1, -1, -1):
        if is_leaf[node]:
            continue
        lc, rc = left[node], right[node]
        if is_leaf[lc] and is_leaf[rc] and errors[lc] + errors[rc] >= errors[node]:
            is_leaf[node] = True
    # representative: the highest ancestor that is a (merged) leaf, found top-down
    rep = np.full(n_nodes, -1, dtype=np.int64)
    stack = [(0, -1)]
    while stack:
        node, r = stack.pop()
        if r == -1 and is_leaf[node]:
            r = node
        rep[node] = r
        if left[node] != -1:
            stack.append((left[node], r))
            stack.append((right[node], r))
    leaves = np.unique(rep[rep >= 0])
    return rep, leaves


def _scale_or_positive(value, name):
    """Parameter rule for ``gamma``: the string ``"scale"`` or a positive real."""
    if isinstance(value, str) and value == "scale":
        return value
    if isinstance(value, str) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be 'scale' or a positive float, got {value!r}.")
    return check_real(value, name, min_val=0.0, include_boundaries="neither")


def _sq_dist(X, W):
    d = np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ W.T + np.einsum("ij,ij->i", W, W)[None, :]
    return np.maximum(d, 0.0)


# ----------------------------------------------------------------------------- embedding
class DecisionTreeEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Decision tree embedding by leaf means (DTE-t), a supervised transformer.

    Parameters
    ----------
    n_trees : int, default=1
        Number of trees ``t``. The first tree is grown on the data, trees 2..t on
        bootstrap samples (each tree's leaf means are computed on its own sample).
    min_samples_leaf : int, default=10
        Minimum number of samples per leaf (MATLAB ``MinLeafSize``; the paper uses 10).
        Must not exceed the number of training samples.
    n_bins : int or None, default=30
        Grow each tree on at most ``n_bins`` equiprobable bins per feature (the paper's
        ``NumBins=30``); ``None`` grows it on the raw values (thresholds at midpoints).
    merge_leaves : bool, default=True
        Merge sibling leaves whose split does not reduce the training misclassification
        count (MATLAB's default ``MergeLeaves='on'``).
    intercept : {"paper", "theorem", "nearest-mean", "none"}, default="paper"
        Intercept ``b`` of the linear embedding, see :func:`leaf_intercept`. It does not
        change the predictions of LDA on the embedding (a common shift of all rows).
    embedding : {"linear", "distance", "rbf"}, default="linear"
        ``"linear"``: the paper's ``Z = X W^T + 1 b^T``. Beyond the paper:
        ``"distance"``: ``Z_j = ||x - mu_j||``; ``"rbf"``: ``Z_j = exp(-gamma ||x - mu_j||^2)``.
        ``intercept`` is ignored by the nonlinear maps.
    gamma : "scale" or float, default="scale"
        RBF width; ``"scale"`` uses ``1 / (n_features * X.var())`` of the training data
        (of the scaled data when ``standardize=True``).
    standardize : bool, default=False
        ``False`` (the paper's map): the embedding uses the raw features.
        ``True``: every feature is divided by its training standard deviation (constant
        features: by 1) before the embedding, i.e. ``x`` and the leaf means ``mu_j`` are
        replaced by ``x / scale_`` and ``mu_j / scale_``. The trees and the leaves are the
        same (a tree is invariant to rescaling a feature); the embedding, and LDA on it, then
        no longer change when a feature is rescaled, and a large-valued feature no longer
        pushes the other directions of the leaf-mean span below the pseudo-inverse's
        tolerance. Features are not centred: centring would remove one direction from the
        span of the leaf means (their weighted mean becomes zero).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap samples and the trees' tie-breaking.

    Attributes
    ----------
    leaf_means_ : ndarray of shape (n_leaves_total, n_features)
        ``W``: the leaf means of all trees, stacked tree after tree, in the units of ``X``
        (also with ``standardize=True``).
    intercept_ : ndarray of shape (n_leaves_total,)
        ``b`` (for the linear embedding), computed from the leaf means the embedding uses
        (scaled ones when ``standardize=True``).
    scale_ : ndarray of shape (n_features,)
        The feature scales divided out before the embedding (ones when ``standardize=False``).
    n_leaves_ : ndarray of shape (n_trees,)
        Number of (merged) leaves of each tree; ``n_leaves_.sum()`` is the embedding dimension.
    trees_ : list of DecisionTreeClassifier
        The fitted scikit-learn trees (grown on bin indices when ``n_bins`` is set).
    bin_edges_ : list of list of ndarray or None
        Per tree, the interior bin edges of each feature (``None`` without binning).
    leaf_class_counts_ : ndarray of shape (n_leaves_total, n_classes)
        Training class counts of each leaf (each tree on its own sample).
    leaf_classes_ : ndarray of shape (n_leaves_total,)
        Majority class label of each leaf.
    classes_ : ndarray of shape (n_classes,)
    gamma_ : float
        RBF width actually used (only for ``embedding="rbf"``).
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> emb = DecisionTreeEmbedding(random_state=0).fit(X, y)
    >>> Z = emb.transform(X)
    >>> bool(Z.shape[1] == emb.n_leaves_.sum())
    True
    """

    _parameter_table = {
        "n_trees": Integer(1),
        "min_samples_leaf": Integer(1),
        "n_bins": Integer(2, allow_none=True),
        "merge_leaves": Boolean(),
        "intercept": Options(*_INTERCEPTS),
        "embedding": Options(*_EMBEDDINGS),
        "gamma": _scale_or_positive,
        "standardize": Boolean(),
        "random_state": RandomState(),
    }

    def __init__(
        self,
        n_trees=1,
        *,
        min_samples_leaf=10,
        n_bins=30,
        merge_leaves=True,
        intercept="paper",
        embedding="linear",
        gamma="scale",
        standardize=False,
        random_state=None,
    ):
        self.n_trees = n_trees
        self.min_samples_leaf = min_samples_leaf
        self.n_bins = n_bins
        self.merge_leaves = merge_leaves
        self.intercept = intercept
        self.embedding = embedding
        self.gamma = gamma
        self.standardize = standardize
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X, y):
        """Grow the trees and compute the leaf means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite training features below 1e150 in magnitude (the leaf-mean norms square them).
        y : array-like of shape (n_samples,)
            Class labels of any type (at least two classes).

        Returns
        -------
        self
        """
        params = check_params(self)
        X, y = validate_X(self, X, require_y(self, y), preset="finite_any_order", reset=True)
        check_magnitude(X, "X", why=SQUARES_X)
        self.classes_, codes = as_class_target(y, X.shape[0], "y", min_classes=2)
        return self._fit_codes(X, codes, params)

    def _fit_codes(self, X, codes, params):
        """Fit on validated ``X``, class codes ``0..K-1`` of ``classes_`` and checked ``params``."""
        n, p = X.shape
        n_trees, msl, n_bins = params["n_trees"], params["min_samples_leaf"], params["n_bins"]
        if msl > n:
            raise ValueError(
                f"min_samples_leaf={msl} is larger than the number of training samples ({n}); "
                "no leaf can be formed. Use a smaller min_samples_leaf or more data."
            )
        n_classes = self.classes_.shape[0]
        rng = check_seed(self.random_state)
        trees, edges_all, means, counts, n_leaves = [], [], [], [], []
        for s in range(n_trees):
            idx = np.arange(n) if s == 0 else rng.randint(0, n, size=n)
            seed = rng.randint(np.iinfo(np.int32).max)
            Xs, cs = X[idx], codes[idx]
            if n_bins is not None:
                edges = _quantile_edges(Xs, n_bins)
                Xt = _apply_bins(Xs, edges)
            else:
                edges, Xt = None, Xs
            tree = DecisionTreeClassifier(criterion="gini", min_samples_leaf=msl, random_state=seed)
            tree.fit(Xt, cs)
            leaf = tree.apply(Xt)
            # class counts at every node, from the leaves upward (parents have smaller ids)
            n_nodes = tree.tree_.node_count
            node_counts = np.zeros((n_nodes, n_classes))
            np.add.at(node_counts, (leaf, cs), 1.0)
            left, right = tree.tree_.children_left, tree.tree_.children_right
            for node in range(n_nodes - 1, -1, -1):
                if left[node] != -1:
                    node_counts[node] = node_counts[left[node]] + node_counts[right[node]]
            if self.merge_leaves:
                rep, leaves = _merged_leaves(tree, node_counts)
            else:
                rep, leaves = np.where(left == -1, np.arange(n_nodes), -1), np.flatnonzero(left == -1)
            col = np.full(n_nodes, -1, dtype=np.int64)
            col[leaves] = np.arange(leaves.shape[0])
            node_to_col = np.where(rep >= 0, col[np.maximum(rep, 0)], -1)
            j = node_to_col[leaf]
            m = leaves.shape[0]
            sums = np.zeros((m, p))
            np.add.at(sums, j, Xs)
            size = np.bincount(j, minlength=m).astype(np.float64)
            means.append(sums / size[:, None])
            counts.append(node_counts[leaves])
            n_leaves.append(m)
            trees.append((tree, node_to_col))
            edges_all.append(edges)
        self.trees_ = [t for t, _ in trees]
        self._node_to_col = [c for _, c in trees]
        self.bin_edges_ = edges_all if n_bins is not None else None
        self.leaf_means_ = np.vstack(means)
        self.n_leaves_ = np.asarray(n_leaves, dtype=np.int64)
        sd = X.std(axis=0)
        self.scale_ = np.where(sd > 0, sd, 1.0) if self.standardize else np.ones(p)
        self._W = self._standardized(self.leaf_means_)
        self.intercept_ = leaf_intercept(self._W, self.intercept)
        self.leaf_class_counts_ = np.vstack(counts)
        self.leaf_classes_ = self.classes_[np.argmax(self.leaf_class_counts_, axis=1)]
        if self.embedding == "rbf":
            if isinstance(self.gamma, str):
                var = self._standardized(X).var()
                self.gamma_ = 1.0 / (p * var) if var > 0 else 1.0
            else:
                self.gamma_ = float(self.gamma)
        self._n_features_out = self.leaf_means_.shape[0]
        return self

    def transform(self, X):
        """Embed ``X``: one column per leaf (all trees concatenated).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to embed, with the columns of ``fit``.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_leaves_total)
        """
        check_is_fitted(self, "leaf_means_")
        return self._embed(validate_X(self, X, preset="finite_any_order", reset=False))

    def _standardized(self, A):
        if not self.standardize:
            return A  # the paper's map: exactly the raw values
        return A / self.scale_

    def _embed(self, X):
        W = self._W
        with np.errstate(over="ignore", invalid="ignore"):
            Xs = self._standardized(X)
            if self.embedding == "linear":
                Z = Xs @ W.T + self.intercept_[None, :]
            else:
                d2 = _sq_dist(Xs, W)
                Z = np.sqrt(d2) if self.embedding == "distance" else np.exp(-self.gamma_ * d2)
        if not np.all(np.isfinite(Z)):
            big = float(np.max(np.abs(X)))
            raise ValueError(
                f"X has values too large for the embedding (max |x| = {big:.3g}): the leaf-mean products "
                "overflow float64. Rescale X to a moderate range (for example with StandardScaler) before "
                "transform."
            )
        return Z

    def apply(self, X):
        """Column index (into ``leaf_means_``) of the leaf reached by each sample in each tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to send down every tree.

        Returns
        -------
        leaves : ndarray of shape (n_samples, n_trees), int64
            ``leaves[i, s]`` indexes the row of ``leaf_means_`` of tree ``s``'s leaf
            containing sample ``i`` (after leaf merging).
        """
        check_is_fitted(self, "leaf_means_")
        X = validate_X(self, X, preset="finite_any_order", reset=False)
        offsets = np.concatenate([[0], np.cumsum(self.n_leaves_)[:-1]])
        out = np.empty((X.shape[0], len(self.trees_)), dtype=np.int64)
        for s, tree in enumerate(self.trees_):
            Xt = X if self.bin_edges_ is None else _apply_bins(X, self.bin_edges_[s])
            out[:, s] = self._node_to_col[s][tree.apply(Xt)] + offsets[s]
        return out


# ----------------------------------------------------------------------------- classifier
class DTEClassifier(ClassifierMixin, BaseEstimator):
    """Decision tree embedding followed by pseudo-inverse LDA (the paper's DTE-t classifier).

    Parameters
    ----------
    n_trees, min_samples_leaf, n_bins, merge_leaves, intercept, embedding, gamma, random_state
        As in :class:`DecisionTreeEmbedding` (defaults: the paper's DTE-1).
    tol : float or None, default=None
        Relative eigenvalue tolerance of the pseudo-inverse in
        :class:`PseudoLinearDiscriminantAnalysis` (``None``: ``n_leaves_total * eps``).
    standardize : bool, default=True
        Embed features divided by their standard deviations (see
        :class:`DecisionTreeEmbedding`), so that the
        discriminant is fitted in a well-conditioned basis: the predictions do not change
        when a feature is rescaled (up to rounding), and a large-valued feature
        beside one-hot columns cannot push the other directions of the leaf-mean span below
        the pseudo-inverse's tolerance. ``False`` is the paper's MATLAB set-up (raw
        features, as ``fitcdiscr`` on ``X W^T + b``); the Table I reproduction (chapter 13,
        ``benchmarks/dte_paper_models.py``) uses it so that its numbers stay comparable with the paper's.

    Attributes
    ----------
    embedding_ : DecisionTreeEmbedding
        The fitted embedding (``embedding_.leaf_means_`` is ``W``, ``embedding_.intercept_`` is ``b``).
    lda_ : PseudoLinearDiscriminantAnalysis
        LDA fitted on the training embedding.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> X, y = load_wine(return_X_y=True)
    >>> clf = DTEClassifier(n_trees=3, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_table = {**DecisionTreeEmbedding._parameter_table, "tol": Real(0.0, 1.0, allow_none=True)}

    def __init__(
        self,
        n_trees=1,
        *,
        min_samples_leaf=10,
        n_bins=30,
        merge_leaves=True,
        intercept="paper",
        embedding="linear",
        gamma="scale",
        tol=None,
        standardize=True,
        random_state=None,
    ):
        self.n_trees = n_trees
        self.min_samples_leaf = min_samples_leaf
        self.n_bins = n_bins
        self.merge_leaves = merge_leaves
        self.intercept = intercept
        self.embedding = embedding
        self.gamma = gamma
        self.tol = tol
        self.standardize = standardize
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the embedding and LDA on it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite training features; at most 1e150 in magnitude, as the embedding and the LDA square
            them.
        y : array-like of shape (n_samples,)
            Class labels of any type (at least two classes).

        Returns
        -------
        self
        """
        params = check_params(self)
        X, y = validate_X(self, X, require_y(self, y), preset="finite_any_order", reset=True)
        check_magnitude(X, "X", why=SQUARES_X)
        self.classes_, codes = as_class_target(y, X.shape[0], "y", min_classes=2)
        emb = DecisionTreeEmbedding(**{name: params[name] for name in DecisionTreeEmbedding._parameter_table})
        emb.n_features_in_ = X.shape[1]
        emb.classes_ = self.classes_
        self.embedding_ = emb._fit_codes(X, codes, params)
        Z = emb._embed(X)
        lda = PseudoLinearDiscriminantAnalysis(tol=self.tol)
        lda.n_features_in_ = Z.shape[1]
        lda.classes_ = self.classes_
        self.lda_ = lda._fit_codes(Z, codes, params["tol"])
        return self

    def _scores(self, X):
        """LDA discriminant scores (one column per class) of the embedded ``X``."""
        check_is_fitted(self, "lda_")
        X = validate_X(self, X, preset="finite_any_order", reset=False)
        return self.lda_._scores(self.embedding_._embed(X))

    def decision_function(self, X):
        """LDA discriminant scores of the embedded ``X`` (1-D for two classes)."""
        return decision_from_scores(self._scores(X))

    def predict_proba(self, X):
        """LDA posterior probabilities of the embedded ``X``, shape (n_samples, n_classes)."""
        return softmax(self._scores(X))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return log_softmax(self._scores(X))

    def predict(self, X):
        """Predicted class labels (of the same type as the training labels)."""
        scores = self._scores(X)  # first: an unfitted estimator raises NotFittedError
        return self.classes_[np.argmax(scores, axis=1)]


# ----------------------------------------------------------------------------- moved away
def __getattr__(name):
    if name == "paper_models":  # benchmark code, moved out of the library in 0.2.0
        raise AttributeError(
            "tabular_trees.dte.paper_models moved out of the library (it is the paper's Table I protocol, "
            "benchmark code): use paper_models from benchmarks/dte_paper_models.py of the repository, or "
            "build the models yourself (chapter 13 of the book lists them, one line each)."
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
