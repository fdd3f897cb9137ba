"""CART: how a decision tree chooses its splits, and small trees equal to scikit-learn's.

A CART node holding samples :math:`P` with impurity :math:`I(P)` is split on the
feature and threshold that maximise the impurity decrease

.. math::

    \\Delta = I(P) - \\frac{N_L}{N} I(L) - \\frac{N_R}{N} I(R),

where :math:`L` and :math:`R` are the samples with ``x <= threshold`` and
``x > threshold``. The impurities are

* ``"squared_error"`` (regression): :math:`I = \\frac1N\\sum_i (y_i - \\bar y)^2`;
* ``"gini"``: :math:`I = 1 - \\sum_k p_k^2`;
* ``"entropy"``: :math:`I = -\\sum_k p_k \\log_2 p_k` (bits, as in scikit-learn),

with :math:`p_k` the class fractions in the node.

Public functions
----------------
:func:`node_impurity`, :func:`split_scan` (the decrease at every candidate threshold
of one feature), :func:`best_split` (the best split over all features), and the
estimators :class:`CARTRegressor` and :class:`CARTClassifier`.

Identity with scikit-learn
--------------------------
The estimators grow, in compiled code (``tabular_trees._tree_kernels``), the same
tree as ``sklearn.tree.DecisionTreeRegressor`` / ``DecisionTreeClassifier`` (version
1.9, ``splitter="best"``, no sample weights; missing values allowed) with the same
``max_depth``, ``min_samples_split``, ``min_samples_leaf``, ``min_impurity_decrease``
and ``random_state``: same node order, features, thresholds, impurities, sample
counts, values and predictions. The rules that make this possible:

* ``X`` is cast to float32; a candidate threshold lies between consecutive sorted
  distinct values (values closer than ``1e-7`` count as equal) and is the float64
  midpoint ``a/2 + b/2``; prediction goes left iff ``float32(x) <= threshold``;
* the best split maximises a "proxy" of the decrease (for squared error
  :math:`S_L^2/N_L + S_R^2/N_R`, for Gini/entropy :math:`-N_L I(L) - N_R I(R)`),
  replacing the incumbent only when strictly larger;
* a node becomes a leaf if ``depth >= max_depth``, if it has fewer than
  ``max(min_samples_split, 2*min_samples_leaf)`` samples, if its impurity is at most
  machine epsilon, if no split leaves ``min_samples_leaf`` samples on both sides, or
  if the *weighted* decrease ``N_t/N * Δ`` plus machine epsilon is below
  ``min_impurity_decrease``;
* leaf values are node means (regression) or class *fractions* (classification,
  ``tree_.value`` as scikit-learn ≥ 1.4 stores it);
* nodes are numbered depth first, left child first; leaves have children ``-1`` and
  feature/threshold ``-2``.

**Missing values.** NaN in ``X`` marks a missing value (infinity is refused). For a
feature with NaN somewhere in the training set, a node sorts its non-missing values,
sets the missing samples aside, and scans the candidate thresholds twice: once with
the missing samples going right — this pass also tries the split "every non-missing
sample left, every missing one right", stored with threshold ``+inf`` — and once with
them going left. The chosen side is stored in ``tree_.missing_go_to_left`` (as
scikit-learn stores it). A node where the split feature had no missing value sends
NaN at predict time to the child that received more training samples (the right one
on a tie). A feature whose values in a node are all missing cannot split it, while a
feature with one distinct non-missing value and some NaN still can. Ties are broken
in scikit-learn's evaluation order, so the trees are the same node for node.
:func:`split_scan` and :func:`best_split` scan complete features only and refuse NaN.

**Ties.** Several features can give exactly the same best decrease: duplicated or
discrete columns, and — even for continuous data — the small nodes deep in a fully
grown tree, where several features separate the same few samples. scikit-learn
visits the features in a random order drawn from ``random_state`` and keeps the first
best one, so its tree depends on ``random_state`` when such ties occur. The
estimators here replicate that random order (and the order of floating-point sums),
so with the same integer ``random_state`` the trees are identical even then; with
``random_state=None`` both libraries draw from NumPy's global generator and the trees
agree only when there are no ties. :func:`best_split`, a teaching function, breaks
ties deterministically instead (lowest feature index, then smallest threshold).
"""

from __future__ import annotations

import re
import textwrap
import warnings
from collections import namedtuple
from functools import partial

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _tree_kernels as _k
from ._validation import (
    Integer,
    RandomState,
    Real,
    as_1d_target,
    as_class_target,
    as_float_matrix,
    as_kernel_matrix,
    as_regression_target,
    check_finite_result,
    check_int,
    check_option,
    check_params,
    check_seed,
    check_tree_arrays,
    reject_missing_labels,
    require_y,
    validate_X,
)

__all__ = [
    "Split",
    "node_impurity",
    "split_scan",
    "best_split",
    "CARTTree",
    "CARTRegressor",
    "CARTClassifier",
]

_CRITERIA = {"squared_error": _k.MSE, "gini": _k.GINI, "entropy": _k.ENTROPY}

Split = namedtuple("Split", ["feature", "threshold", "decrease", "n_left", "n_right"])
Split.__doc__ = """Best split of a node, returned by :func:`best_split`.

Attributes
----------
feature : int
    Column index of the split feature, or ``-1`` if no admissible split exists.
threshold : float
    Samples with ``float32(x[feature]) <= threshold`` go left (``nan`` if no split).
decrease : float
    Impurity decrease ``I(P) - N_L/N I(L) - N_R/N I(R)`` (``0.0`` if no split).
n_left, n_right : int
    Samples going left and right (``0`` and ``n`` if no split).
"""


# --------------------------------------------------------------------------- validation helpers
def _check_criterion(criterion, name="criterion", allowed=tuple(_CRITERIA)):
    """A criterion name among ``allowed`` (a hyperparameter rule of :func:`check_params` too)."""
    if not isinstance(criterion, str):
        raise TypeError(f"{name} must be a string, one of {sorted(allowed)!r}; got {criterion!r}.")
    return check_option(criterion, name, set(allowed))


def _as_target(y, n_samples, criterion):
    """``(y_float64, codes, n_classes)`` as the kernels read ``y`` under ``criterion``; the unused one is a dummy.

    The teaching functions accept any labels for Gini and entropy, float ones included.
    """
    if criterion == "squared_error":
        yf = as_regression_target(y, n_samples)
        return yf, np.zeros(yf.shape[0], dtype=np.int64), 1
    classes, codes = as_class_target(y, n_samples, min_classes=1, allow_continuous=True)
    return np.zeros(codes.shape[0]), codes, classes.shape[0]


def _as_feature(x, name="x"):
    """A 1-D finite feature as float32 (the precision scikit-learn's trees split in)."""
    if np.ndim(x) == 2 and np.shape(x)[1] != 1:
        raise ValueError(
            f"{name} must be a single feature of shape (n_samples,), got shape {np.shape(x)}; "
            "use best_split for a matrix of features."
        )
    arr = as_1d_target(x, name=name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}.")
    with np.errstate(over="ignore"):
        x32 = np.ascontiguousarray(arr, dtype=np.float32)
    if not np.all(np.isfinite(x32)):
        raise ValueError(
            f"{name} contains NaN or infinity (or values too large for float32); drop or impute them first "
            "(CARTRegressor and CARTClassifier, unlike this function, accept NaN as a missing value)."
        )
    return x32


# --------------------------------------------------------------------------- public functions
def node_impurity(y, criterion="squared_error"):
    """Impurity of a node holding the targets ``y``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Regression targets for ``"squared_error"``; class labels of any type
        (numbers or strings) for ``"gini"`` and ``"entropy"``.
    criterion : {"squared_error", "gini", "entropy"}, default="squared_error"
        ``"squared_error"``: mean squared deviation from the mean (the variance with
        divisor ``N``); ``"gini"``: ``1 - sum_k p_k**2``; ``"entropy"``:
        ``-sum_k p_k log2 p_k`` in bits, where ``p_k`` are the class fractions.

    Returns
    -------
    float
        The impurity (``0.0`` for a pure or constant node).

    Examples
    --------
    >>> node_impurity([1.0, 2.0, 3.0, 4.0])
    1.25
    >>> node_impurity(["a", "a", "b", "b"], criterion="gini")
    0.5
    >>> node_impurity([0, 0, 1, 1], criterion="entropy")
    1.0
    """
    criterion = _check_criterion(criterion)
    if criterion == "squared_error" and np.shape(y)[:1] == (0,):
        raise ValueError("y is empty; the impurity of an empty node is undefined.")
    yf, codes, n_classes = _as_target(y, None, criterion)
    if criterion == "squared_error":
        return float(check_finite_result(_k._variance(yf), "the variance of y",
                                         "y has values too large (near 1e154 or more); rescale y."))
    counts = _k._class_counts(codes, n_classes)
    return float(_k._class_impurity(counts, float(codes.shape[0]), _CRITERIA[criterion]))


def split_scan(x, y, criterion="squared_error", min_samples_leaf=1):
    """Impurity decrease at every candidate threshold of one feature.

    The candidates are scikit-learn's: sort ``float32(x)``, and between every two
    consecutive distinct values ``a < b`` (values closer than ``1e-7`` count as
    equal) take the midpoint ``a/2 + b/2`` (in float64). Only thresholds leaving at
    least ``min_samples_leaf`` samples on each side are returned.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        One feature.
    y : array-like of shape (n_samples,)
        Targets (``"squared_error"``) or class labels (``"gini"``, ``"entropy"``).
    criterion : {"squared_error", "gini", "entropy"}, default="squared_error"
        Impurity, see :func:`node_impurity`.
    min_samples_leaf : int, default=1
        Minimum number of samples on each side of a split.

    Returns
    -------
    thresholds : ndarray of shape (n_candidates,)
        Candidate thresholds, increasing (empty if ``x`` is constant).
    decrease : ndarray of shape (n_candidates,)
        ``I(P) - N_L/N I(L) - N_R/N I(R)`` for the split ``x <= threshold``.

    Examples
    --------
    >>> t, d = split_scan([1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 1.0, 1.0])
    >>> t.tolist()
    [1.5, 2.5, 3.5]
    >>> np.round(d, 4).tolist()
    [0.0833, 0.25, 0.0833]
    """
    criterion = _check_criterion(criterion)
    min_samples_leaf = check_int(min_samples_leaf, "min_samples_leaf", min_val=1)
    x32 = _as_feature(x)
    yf, codes, n_classes = _as_target(y, x32.shape[0], criterion)
    order = np.argsort(x32, kind="stable")
    thr, dec, _ = _k._scan_sorted(
        x32[order], yf[order], codes[order], n_classes, _CRITERIA[criterion], min_samples_leaf
    )
    return thr, dec


def best_split(X, y, criterion="squared_error", min_samples_leaf=1):
    """Best CART split of a node over all features.

    Scans every feature with the rule of :func:`split_scan` and returns the split of
    largest impurity decrease. Ties (equal decrease) go to the lowest feature index,
    then to the smallest threshold. scikit-learn breaks ties between features in a
    random order instead; on data without such ties this is scikit-learn's root split.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features (cast to float32, as scikit-learn's trees do).
    y : array-like of shape (n_samples,)
        Targets (``"squared_error"``) or class labels (``"gini"``, ``"entropy"``).
    criterion : {"squared_error", "gini", "entropy"}, default="squared_error"
        Impurity, as in :func:`split_scan`.
    min_samples_leaf : int, default=1
        Minimum number of samples in each child.

    Returns
    -------
    Split
        ``Split(feature, threshold, decrease, n_left, n_right)``. If no admissible
        split exists (every feature constant, or fewer than ``2*min_samples_leaf``
        samples) it does **not** raise: it returns
        ``Split(feature=-1, threshold=nan, decrease=0.0, n_left=0, n_right=n_samples)``.

    Examples
    --------
    >>> X = [[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]]
    >>> s = best_split(X, [1.0, 1.0, 3.0, 3.0])
    >>> s.feature, s.threshold, s.decrease, s.n_left, s.n_right
    (0, 1.5, 1.0, 2, 2)
    """
    criterion = _check_criterion(criterion)
    min_samples_leaf = check_int(min_samples_leaf, "min_samples_leaf", min_val=1)
    X32 = as_float_matrix(X, dtype=np.float32)
    yf, codes, n_classes = _as_target(y, X32.shape[0], criterion)
    data = _k.CartData(np.asfortranarray(X32), yf, codes, n_classes, np.zeros(X32.shape[1], dtype=np.uint8))
    f, t, d, nl = _k._best_split(data, _CRITERIA[criterion], min_samples_leaf)
    n = X32.shape[0]
    if f < 0:
        return Split(-1, float("nan"), 0.0, 0, n)
    return Split(int(f), float(t), float(d), int(nl), int(n - nl))


# --------------------------------------------------------------------------- fitted tree
class CARTTree:
    """Arrays of a fitted tree, laid out like scikit-learn's ``tree_``.

    Node ``i`` has children ``children_left[i]``, ``children_right[i]`` (``-1`` for a
    leaf), splits on ``feature[i]`` at ``threshold[i]`` (``-2`` for a leaf), holds
    ``n_node_samples[i]`` training samples of impurity ``impurity[i]`` and predicts
    ``value[i, 0]`` (the mean for regression, the class fractions for classification).
    Nodes are numbered depth first, left child first; node 0 is the root.

    Attributes
    ----------
    node_count : int
    n_features : int
    n_outputs : int
        Always 1.
    n_classes : ndarray of shape (1,)
        Number of classes (1 for regression).
    max_depth : int
        Depth of the deepest leaf (the root has depth 0).
    n_leaves : int
    children_left, children_right, feature : ndarray of int64, shape (node_count,)
    threshold, impurity, weighted_n_node_samples : ndarray of float64, shape (node_count,)
    n_node_samples : ndarray of int64, shape (node_count,)
    value : ndarray of shape (node_count, 1, n_classes)
    missing_go_to_left : ndarray of uint8, shape (node_count,)
        At a split node, 1 if a sample whose split feature is NaN goes to the left child,
        0 if it goes right (scikit-learn's ``tree_.missing_go_to_left``); 0 at leaves.

    Examples
    --------
    >>> reg = CARTRegressor(max_depth=1).fit([[0.0], [1.0], [2.0], [3.0]], [0.0, 0.0, 1.0, 1.0])
    >>> reg.tree_.node_count, reg.tree_.children_left.tolist(), reg.tree_.threshold.tolist()
    (3, [1, -1, -1], [1.5, -2.0, -2.0])
    """

    def __init__(self, children_left, children_right, feature, threshold, value, impurity,
                 n_node_samples, max_depth, n_features, missing_go_to_left=None):
        if missing_go_to_left is None:
            missing_go_to_left = np.zeros(children_left.shape[0], dtype=np.uint8)
        self.missing_go_to_left = missing_go_to_left
        self.children_left = children_left
        self.children_right = children_right
        self.feature = feature
        self.threshold = threshold
        self.value = value.reshape(value.shape[0], 1, value.shape[1])
        self.impurity = impurity
        self.n_node_samples = n_node_samples
        self.weighted_n_node_samples = n_node_samples.astype(np.float64)
        self.node_count = int(children_left.shape[0])
        self.max_depth = int(max_depth)
        self.n_features = int(n_features)
        self.n_outputs = 1
        self.n_classes = np.array([value.shape[1]], dtype=np.intp)
        self.n_leaves = int(np.sum(children_left == -1))

    def _walk_arrays(self):
        """Node arrays for a compiled walk, checked so that it cannot index out of bounds."""
        check_tree_arrays(self.children_left, self.children_right, self.feature, self.n_features)
        n = self.node_count
        threshold = np.ascontiguousarray(self.threshold, dtype=np.float64)
        mgl = np.ascontiguousarray(self.missing_go_to_left, dtype=np.uint8)
        if threshold.shape != (n,) or mgl.shape != (n,):
            raise ValueError(
                f"tree arrays threshold and missing_go_to_left must have shape ({n},) like children_left; "
                f"got {threshold.shape} and {mgl.shape}."
            )
        return _k.TreeArrays(self.children_left, self.children_right, self.feature, threshold, mgl)

    def apply(self, X32):
        """Leaf index of each row of a matrix with ``n_features`` columns (used as float32).

        NaN (a missing value) goes to the child that ``missing_go_to_left`` names; the
        shape and the tree arrays are checked before the compiled walk.
        """
        arrays = self._walk_arrays()
        X32 = as_kernel_matrix(X32, self.n_features, "X", dtype=np.float32, allow_nan=True)
        return _k._apply(X32, arrays)

    def predict(self, X32):
        """``value`` of the leaf of each row, shape (n_samples, 1, n_classes)."""
        return self.value[self.apply(X32)]

    def compute_feature_importances(self, normalize=True):
        """Mean decrease in impurity per feature (scikit-learn's definition)."""
        imp = np.zeros(self.n_features)
        w = self.weighted_n_node_samples
        for i in np.flatnonzero(self.children_left != -1):
            left, right = self.children_left[i], self.children_right[i]
            imp[self.feature[i]] += (w[i] * self.impurity[i] - w[left] * self.impurity[left]
                                     - w[right] * self.impurity[right])
        imp /= w[0]
        if normalize and imp.sum() > 0:
            imp /= imp.sum()
        return imp

    def __repr__(self):
        return f"CARTTree(node_count={self.node_count}, max_depth={self.max_depth}, n_leaves={self.n_leaves})"


# --------------------------------------------------------------------------- estimators
# the hyperparameters both estimators share, documented once ("{growth_parameters}" in their docstrings)
_GROWTH_PARAMETERS = """\
max_depth : int or None, default=None
    Maximum depth (root = depth 0); ``None`` grows until the other rules stop.
min_samples_split : int, default=2
    A node with fewer samples is a leaf.
min_samples_leaf : int, default=1
    Every leaf keeps at least this many samples.
min_impurity_decrease : float, default=0.0
    A node is split only if ``N_t/N * Δ >= min_impurity_decrease`` (up to machine
    epsilon), where ``N_t`` is the node's and ``N`` the training set's size.
random_state : int, RandomState instance or None, default=None
    Order in which features are examined, as in scikit-learn; it matters only when
    two features give exactly the same best decrease."""


class _BaseCART(BaseEstimator):
    """Shared fitting and prediction code of the CART estimators."""

    # hyperparameters, checked once at fit by check_params (the classifier adds its criterion)
    _parameter_table = {
        "max_depth": Integer(1, allow_none=True),
        "min_samples_split": Integer(2),
        "min_samples_leaf": Integer(1),
        "min_impurity_decrease": Real(0.0),
        "random_state": RandomState(),
    }

    def __init__(self, max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, random_state=None):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.random_state = random_state

    def fit(self, X, y):
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features (cast to float32); NaN marks a missing value, infinity is refused.
        y : array-like of shape (n_samples,)
            Finite targets (:class:`CARTRegressor`), or class labels of any type, numbers
            or strings, with no missing label (:class:`CARTClassifier`).

        Returns
        -------
        self
        """
        params = check_params(self)
        X32 = validate_X(self, X, preset="missing_float32", reset=True)
        yf, codes, n_classes = self._encode_y(self._prepare_y(y), X32.shape[0])
        seed = int(check_seed(params["random_state"]).randint(0, _k.RAND_R_MAX))
        max_depth = np.iinfo(np.int32).max if params["max_depth"] is None else params["max_depth"]
        min_samples_leaf = params["min_samples_leaf"]
        rules = _k.CartRules(_CRITERIA[self.criterion], int(max_depth),
                             int(max(params["min_samples_split"], 2 * min_samples_leaf)), int(min_samples_leaf),
                             float(params["min_impurity_decrease"]), seed)
        # columns holding a missing value somewhere: only those are searched for NaN
        missing = np.isnan(X32).any(axis=0).astype(np.uint8)
        data = _k.CartData(np.asfortranarray(X32), yf, codes, n_classes, missing)
        cl, cr, feat, thr, value, imp, nns, depth, mgl = _k._build_tree(data, rules)
        self.tree_ = CARTTree(cl, cr, feat, thr, value, imp, nns, depth, X32.shape[1], mgl)
        return self

    def _prepare_y(self, y):
        require_y(self, y)
        arr = np.asarray(y) if not hasattr(y, "shape") else y
        if getattr(arr, "ndim", 1) == 2 and arr.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. Please change the shape "
                "of y to (n_samples,), for example using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            arr = np.asarray(arr).ravel()
        return arr

    def _walk(self, X):
        """``X`` validated for prediction (once, by ``validate_X``) and the checked node arrays of ``tree_``."""
        check_is_fitted(self, "tree_")
        X32 = validate_X(self, X, preset="missing_float32", reset=False)
        if X32.shape[1] != self.tree_.n_features:  # only if tree_ was replaced after fit
            raise ValueError(f"X has {X32.shape[1]} features but tree_ has {self.tree_.n_features}; refit.")
        return X32, self.tree_._walk_arrays()

    def _leaf_values(self, X):
        """``tree_.value`` of each sample's leaf, shape (n_samples, 1, n_classes)."""
        leaves = self.apply(X)  # checks first that the estimator is fitted
        return self.tree_.value[leaves]

    def predict(self, X):
        """Predicted target of each sample, read from its leaf.

        The mean training target of the leaf (:class:`CARTRegressor`), or its most frequent
        training class, the first one on ties (:class:`CARTClassifier`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks a missing value.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Values (regression) or labels from ``classes_`` (classification).
        """
        return self._from_leaf_values(self._leaf_values(X))

    def apply(self, X):
        """Index of the leaf each sample ends up in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN follows ``tree_.missing_go_to_left`` at each split.

        Returns
        -------
        leaves : ndarray of int64, shape (n_samples,)
            Node indices into the arrays of ``tree_``.
        """
        return _k._apply(*self._walk(X))

    def decision_path(self, X):
        """Nodes visited by each sample, as a sparse indicator matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Walked as in :meth:`apply`.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Entry ``(i, j)`` is 1 if sample ``i`` passes through node ``j``.
        """
        X32, arrays = self._walk(X)
        indptr, indices = _k._decision_path(X32, arrays, self.tree_.max_depth)
        data = np.ones(indices.shape[0], dtype=np.intp)
        return sp.csr_matrix((data, indices, indptr), shape=(X32.shape[0], self.tree_.node_count))

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN marks a missing value; infinity is refused
        return tags

    @property
    def feature_importances_(self):
        """Normalised mean decrease in impurity (MDI) of each feature, as scikit-learn defines it."""
        check_is_fitted(self, "tree_")
        return self.tree_.compute_feature_importances()


class CARTRegressor(RegressorMixin, _BaseCART):
    """Regression tree grown with squared-error CART, equal to scikit-learn's.

    With the same data and settings (and the same integer ``random_state`` when
    features can tie) the fitted ``tree_`` equals that of
    ``sklearn.tree.DecisionTreeRegressor(criterion="squared_error")``; see the module
    documentation for the rules involved. The whole tree is grown in compiled code.
    Missing values (NaN in ``X``) are routed natively, as in scikit-learn: each split
    also learns on which side the missing samples go (``tree_.missing_go_to_left``).

    Parameters
    ----------
    {growth_parameters}

    Attributes
    ----------
    tree_ : CARTTree
        Node arrays of the fitted tree (``value`` holds node means).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a data frame with string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Mean decrease in impurity.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> ours = CARTRegressor(max_depth=3).fit(X, y)
    >>> theirs = DecisionTreeRegressor(max_depth=3).fit(X, y)
    >>> bool(np.array_equal(ours.tree_.threshold, theirs.tree_.threshold))
    True
    >>> bool(np.allclose(ours.predict(X), theirs.predict(X)))
    True

    With missing values the trees still agree, missing-value directions included:

    >>> X[rng.random(X.shape) < 0.2] = np.nan
    >>> ours = CARTRegressor(max_depth=3, random_state=0).fit(X, y)
    >>> theirs = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    >>> bool(np.array_equal(ours.tree_.missing_go_to_left, theirs.tree_.missing_go_to_left))
    True
    >>> bool(np.allclose(ours.predict([[np.nan, 0.0, 0.0]]), theirs.predict([[np.nan, 0.0, 0.0]])))
    True
    """

    criterion = "squared_error"  # fixed; a class attribute so that it is not a parameter

    def _encode_y(self, y, n_samples):
        """``(targets, dummy codes, 1)`` for the kernels; non-numeric objects refused."""
        if getattr(y, "dtype", None) == object:
            try:
                y = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError("y must hold numbers for regression; it has non-numeric objects.") from None
        return _as_target(y, n_samples, "squared_error")

    def _from_leaf_values(self, values):
        return values[:, 0, 0]


class CARTClassifier(ClassifierMixin, _BaseCART):
    """Classification tree grown with Gini or entropy CART, equal to scikit-learn's.

    With the same data and settings (and the same integer ``random_state`` when
    features can tie) the fitted ``tree_`` equals that of
    ``sklearn.tree.DecisionTreeClassifier``; see the module documentation. A training
    set with a single class is accepted, as in scikit-learn: the tree is one leaf that
    predicts that class with probability 1. Missing values (NaN in ``X``) are routed
    natively, as in scikit-learn (``tree_.missing_go_to_left``).

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        Impurity, see :func:`node_impurity` (entropy in bits).
    {growth_parameters}

    Attributes
    ----------
    tree_ : CARTTree
        Node arrays; ``value[i, 0]`` holds the class fractions of node ``i``.
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_importances_ : ndarray of shape (n_features,)
        Mean decrease in impurity.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> ours = CARTClassifier(max_depth=4, random_state=0).fit(X, y)
    >>> theirs = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    >>> bool(np.array_equal(ours.tree_.feature, theirs.tree_.feature))
    True
    >>> bool((ours.predict(X) == theirs.predict(X)).all())
    True

    A feature that is missing exactly when the class is 1 is split as "known / missing":

    >>> x = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan]])
    >>> clf = CARTClassifier().fit(x, [0, 0, 0, 1, 1])
    >>> float(clf.tree_.threshold[0]), int(clf.tree_.missing_go_to_left[0])
    (inf, 0)
    >>> clf.predict([[np.nan], [2.5]]).tolist()
    [1, 0]
    """

    _parameter_table = {"criterion": partial(_check_criterion, allowed=("gini", "entropy"))}

    def __init__(self, criterion="gini", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, random_state=None):
        self.criterion = criterion
        super().__init__(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease, random_state=random_state)

    def _encode_y(self, y, n_samples):
        """``(dummy targets, class codes, n_classes)`` for the kernels; sets ``classes_`` and ``n_classes_``."""
        y = reject_missing_labels(y)
        check_classification_targets(y)
        classes, codes = as_class_target(y, n_samples, min_classes=1)
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        return np.zeros(codes.shape[0]), codes, self.n_classes_

    def predict_proba(self, X):
        """Class fractions of the training samples in each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, as in :meth:`predict`.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return self._leaf_values(X)[:, 0, :].copy()

    def _from_leaf_values(self, values):
        return self.classes_.take(np.argmax(values[:, 0, :], axis=1), axis=0)


def _fill_growth_parameters(doc):
    """Put the shared parameters where ``{growth_parameters}`` stands, at that line's indentation (Python 3.13
    strips a docstring's common indentation when it compiles it, earlier versions keep it)."""
    indent = re.search(r"^([ \t]*)\{growth_parameters\}", doc, flags=re.MULTILINE).group(1)
    return doc.replace(f"{indent}{{growth_parameters}}", textwrap.indent(_GROWTH_PARAMETERS, indent))


for _est in (CARTRegressor, CARTClassifier):
    if _est.__doc__:  # None under python -OO
        _est.__doc__ = _fill_growth_parameters(_est.__doc__)
del _est
