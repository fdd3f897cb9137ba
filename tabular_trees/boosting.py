"""A teaching gradient booster with XGBoost's second-order trees on histograms.

Each boosting round fits one regression tree (per class for more than two
classes) to the first and second derivatives of the loss at the current
predictions. With ``g_i = dL/df`` and ``h_i = d^2L/df^2`` summed over the rows of
a leaf (``G``, ``H``) the regularised objective of Chen & Guestrin (2016),
``sum_i L(y_i, f_i) + gamma T + lambda/2 sum_leaves w^2``, gives

* the optimal leaf weight ``w* = -G / (H + lambda)``   (:func:`leaf_weight`),
* the gain of splitting a node into L and R
  ``1/2 [G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) - (G_L+G_R)^2/(H_L+H_R+lambda)] - gamma``
  (:func:`split_gain`).

The tree added in a round contributes ``learning_rate * w*`` in each leaf
(shrinkage), which is also what XGBoost writes in its tree dumps.

Split finding uses histograms: every feature is cut once, before boosting,
into at most ``max_bins`` bins (:func:`compute_bin_edges`, :func:`bin_data`),
and a node's candidate splits are the bin boundaries, scored from per-bin sums
of ``g`` and ``h`` (:func:`build_histogram`). Trees grow depth-wise to
``max_depth`` (``max_depth=1`` gives stumps). The compiled kernels live in
``tabular_trees._boosting_kernels``.

Differences from XGBoost worth knowing (checked in ``tests/test_boosting.py``):

* XGBoost's code scores splits *without* the factor 1/2 and compares that to
  its ``gamma`` (``min_split_loss``); so its reported ``Gain`` is
  ``2 * (split_gain + gamma)`` and its ``gamma`` equals ``2 * gamma`` here.
* XGBoost's multiclass softmax uses the Hessian ``2 p (1 - p)``; here the
  exact diagonal ``p (1 - p)`` is used.
* A node is split only when its best gain (with ``-gamma``) is positive
  (pre-pruning, as XGBoost's ``hist`` grower does). XGBoost's ``exact`` method
  grows with ``gamma = 0`` and prunes afterwards, bottom-up, the splits whose
  gain is below ``gamma``; it can therefore keep a weak split that has a strong
  split below it, where this implementation stops. In the tests the two agree.
* Bins: XGBoost ``hist`` and LightGBM choose cut points with their own
  (weighted) quantile sketches, so with many distinct values their candidate
  splits differ slightly from :func:`compute_bin_edges`; with at most
  ``max_bins`` distinct values per feature all three coincide with exact
  greedy search.
* Single-threaded kernels; no row or column subsampling.
* No missing-value handling: ``NaN`` in ``X`` raises an error.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _boosting_kernels as _k
from ._validation import MAX_SQUARABLE
from ._validation import (
    as_class_target,
    as_kernel_matrix,
    as_regression_target,
    check_int,
    check_random_state,
    check_real,
    check_tree_arrays,
    reject_missing_labels,
    as_finite_array,
    check_finite_result,
    check_magnitude,
)

__all__ = [
    "leaf_weight",
    "split_gain",
    "SquaredError",
    "LogisticLoss",
    "SoftmaxLoss",
    "compute_bin_edges",
    "bin_data",
    "build_histogram",
    "BoostedTree",
    "GradientBoostingRegressor",
    "GradientBoostingClassifier",
]

_HESS_FLOOR = 1e-16  # as in XGBoost: keeps H + lambda > 0 when lambda = 0 and p saturates


# --------------------------------------------------------------------------- formulas
def _same_shape(*named):
    shapes = {n: a.shape for n, a in named}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"{', '.join(shapes)} must have the same shape, got {shapes}.")


def _y_raw(y, raw, n_outputs=1):
    """Validate a loss method's ``y`` (targets / class codes) and ``raw`` (scores) before the formulas."""
    y = as_finite_array(y, "y", ndim=1)
    raw = as_finite_array(raw, "raw", ndim=1 if n_outputs == 1 else 2)
    if raw.shape[0] != y.shape[0] or (n_outputs > 1 and raw.shape[1] != n_outputs):
        want = f"({y.shape[0]},)" if n_outputs == 1 else f"({y.shape[0]}, {n_outputs})"
        raise ValueError(f"raw must have shape {want} to match y, got {raw.shape}.")
    if n_outputs > 1 and (np.any(y != np.round(y)) or np.any(y < 0) or np.any(y >= n_outputs)):
        raise ValueError(f"y must hold class codes 0..{n_outputs - 1} (integers), got other values.")
    return y, raw


def _check_lambda(reg_lambda):
    return check_real(reg_lambda, "reg_lambda", min_val=0.0)


def leaf_weight(G, H, reg_lambda=1.0):
    """Optimal leaf weight ``w* = -G / (H + reg_lambda)`` of the second-order objective.

    Minimises ``G w + (H + reg_lambda) w^2 / 2``, the second-order Taylor
    expansion of the loss over a leaf's rows plus the L2 penalty
    ``reg_lambda w^2 / 2``.

    Parameters
    ----------
    G : float or array-like
        Sum of the loss gradients over the rows in the leaf.
    H : float or array-like
        Sum of the loss Hessians over the rows in the leaf (must be >= 0).
    reg_lambda : float, default=1.0
        L2 penalty on the leaf weight, >= 0. ``H + reg_lambda`` must be > 0.

    Returns
    -------
    float or ndarray
        ``-G / (H + reg_lambda)`` (without the learning rate).

    Examples
    --------
    For squared error ``g_i = f_i - y_i`` and ``h_i = 1``, so with
    ``reg_lambda=0`` the leaf weight is the mean residual:

    >>> leaf_weight(G=-6.0, H=3.0, reg_lambda=0.0)
    2.0
    >>> leaf_weight(G=-6.0, H=3.0, reg_lambda=1.0)
    1.5
    """
    lam = _check_lambda(reg_lambda)
    G_arr = as_finite_array(G, "G")
    H_arr = as_finite_array(H, "H")
    _same_shape(("G", G_arr), ("H", H_arr))
    if np.any(H_arr < 0):
        raise ValueError("H is a sum of Hessians of a convex loss and must be >= 0.")
    if np.any(H_arr + lam <= 0):
        raise ValueError("H + reg_lambda must be > 0; use reg_lambda > 0 for empty or flat leaves.")
    out = -G_arr / (H_arr + lam)
    return float(out) if out.ndim == 0 else out


def split_gain(GL, HL, GR, HR, reg_lambda=1.0, gamma=0.0):
    """Gain of a split in XGBoost's regularised second-order objective.

    ``1/2 [GL^2/(HL+l) + GR^2/(HR+l) - (GL+GR)^2/(HL+HR+l)] - gamma`` with
    ``l = reg_lambda``: the decrease of the objective when one leaf is replaced
    by two at their optimal weights, minus the price ``gamma`` of one more leaf.
    A split is worth making when this is positive.

    Note: XGBoost's implementation reports (and thresholds with its ``gamma``)
    the bracket *without* the 1/2, i.e. ``2 * (split_gain + gamma)``.

    Parameters
    ----------
    GL, HL : float or array-like
        Gradient and Hessian sums of the left child.
    GR, HR : float or array-like
        Gradient and Hessian sums of the right child.
    reg_lambda : float, default=1.0
        L2 leaf penalty, >= 0.
    gamma : float, default=0.0
        Penalty per leaf, >= 0.

    Returns
    -------
    float or ndarray

    Examples
    --------
    Residuals -1, -1 on the left and +1, +1 on the right (squared error, so
    ``h = 1``), no regularisation: the gain is the drop in half the sum of
    squared residuals, ``1/2 (4/2 + 4/2 - 0) = 2``.

    >>> split_gain(2.0, 2.0, -2.0, 2.0, reg_lambda=0.0)
    2.0
    """
    lam = _check_lambda(reg_lambda)
    gam = check_real(gamma, "gamma", min_val=0.0)
    arrs = [as_finite_array(a, n) for a, n in ((GL, "GL"), (HL, "HL"), (GR, "GR"), (HR, "HR"))]
    _same_shape(*zip(("GL", "HL", "GR", "HR"), arrs))
    GL_, HL_, GR_, HR_ = arrs
    if np.any(HL_ < 0) or np.any(HR_ < 0):
        raise ValueError("HL and HR are sums of Hessians of a convex loss and must be >= 0.")
    if np.any(HL_ + lam <= 0) or np.any(HR_ + lam <= 0):
        raise ValueError("HL + reg_lambda and HR + reg_lambda must be > 0.")
    G = GL_ + GR_
    H = HL_ + HR_
    with np.errstate(over="ignore", invalid="ignore"):
        out = 0.5 * (GL_**2 / (HL_ + lam) + GR_**2 / (HR_ + lam) - G**2 / (H + lam)) - gam
    check_finite_result(out, "split_gain", "GL and GR are too large (|G| near 1e154 or more); rescale them.")
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- losses
class SquaredError:
    """Squared error ``L(y, f) = (y - f)^2 / 2``: ``g = f - y``, ``h = 1``.

    The base score (the constant prediction before the first tree) is the
    mean of ``y``, the minimiser of the loss over constants.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = SquaredError().gradient_hessian(np.array([1.0, 2.0]), np.array([0.5, 0.5]))
    >>> g.tolist(), h.tolist()
    ([-0.5, -1.5], [1.0, 1.0])
    """

    n_outputs = 1

    def loss(self, y, raw):
        """Per-sample loss ``(y - f)^2 / 2``."""
        y, raw = _y_raw(y, raw)
        return 0.5 * (y - raw) ** 2

    def gradient_hessian(self, y, raw):
        """First and second derivative of the loss in ``f`` (per sample)."""
        y, raw = _y_raw(y, raw)
        g = raw - y
        return g, np.ones_like(g)

    def base_score(self, y):
        """Mean of ``y``."""
        return np.array([float(np.mean(y))])

    def score(self, y, raw):
        """Mean squared error (what ``train_score_`` records)."""
        return float(np.mean((np.asarray(y, dtype=np.float64) - raw) ** 2))


class LogisticLoss:
    """Binary log-loss on the log-odds ``f``: ``L = log(1 + e^f) - y f`` with ``y`` in {0, 1}.

    ``g = sigma(f) - y`` and ``h = sigma(f) (1 - sigma(f))`` (floored at 1e-16
    like XGBoost). The base score is the log-odds of the class prior,
    ``log(p / (1 - p))`` with ``p = mean(y)`` clipped to ``[1e-15, 1 - 1e-15]`` (scikit-learn's
    binomial loss clips likewise), so a ``y`` of one class gives a finite base score of about
    ``-34.5`` (all 0) or ``+34.5`` (all 1) instead of infinity.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = LogisticLoss().gradient_hessian(np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    >>> g.tolist(), h.tolist()
    ([-0.5, 0.5], [0.25, 0.25])
    """

    n_outputs = 1

    def loss(self, y, raw):
        """Per-sample log-loss ``log(1 + exp(f)) - y f`` (computed stably)."""
        y, raw = _y_raw(y, raw)
        return np.logaddexp(0.0, raw) - y * raw

    def gradient_hessian(self, y, raw):
        """``g = sigma(f) - y``, ``h = max(sigma(f)(1 - sigma(f)), 1e-16)``."""
        y, raw = _y_raw(y, raw)
        p = _sigmoid(raw)
        return p - y, np.maximum(p * (1.0 - p), _HESS_FLOOR)

    def base_score(self, y):
        """Log-odds of the positive-class frequency, clipped to ``[1e-15, 1 - 1e-15]`` (finite for one class)."""
        p = float(np.mean(y))
        # p strictly inside (0, 1) (both classes present) is returned unchanged, bit for bit
        p = min(max(p, _PROB_CLIP), 1.0 - _PROB_CLIP)
        return np.array([np.log(p / (1.0 - p))])

    def score(self, y, raw):
        """Mean log-loss."""
        return float(np.mean(self.loss(y, raw)))


class SoftmaxLoss:
    """Multiclass cross-entropy on K raw scores: ``L = logsumexp(f) - f_y``.

    Per class ``g_k = p_k - [y = k]`` and the diagonal Hessian
    ``h_k = p_k (1 - p_k)`` (XGBoost uses ``2 p_k (1 - p_k)``). The base score
    is ``log`` of the class frequencies, a frequency of 0 (a class absent from ``y``) clipped to
    ``1e-15`` (scikit-learn's multinomial loss clips likewise): about ``-34.5``, finite. One tree
    per class and round.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = SoftmaxLoss(3).gradient_hessian(np.array([0]), np.zeros((1, 3)))
    >>> np.round(g, 3).tolist()
    [[-0.667, 0.333, 0.333]]
    """

    def __init__(self, n_classes):
        self.n_outputs = check_int(n_classes, "n_classes", min_val=2)

    def loss(self, y, raw):
        """Per-sample cross-entropy."""
        y, raw = _y_raw(y, raw, self.n_outputs)
        m = raw.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(raw - m).sum(axis=1))
        return lse - raw[np.arange(raw.shape[0]), np.asarray(y, dtype=np.int64)]

    def gradient_hessian(self, y, raw):
        """Per-class gradients and diagonal Hessians, each of shape (n, K)."""
        y, raw = _y_raw(y, raw, self.n_outputs)
        p = _softmax(raw)
        onehot = np.zeros_like(p)
        onehot[np.arange(p.shape[0]), np.asarray(y, dtype=np.int64)] = 1.0
        return p - onehot, np.maximum(p * (1.0 - p), _HESS_FLOOR)

    def base_score(self, y):
        """Log class frequencies."""
        counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=self.n_outputs)
        # frequencies of present classes (>= 1 / n_samples) are unchanged, bit for bit
        return np.log(np.maximum(counts / counts.sum(), _PROB_CLIP))

    def score(self, y, raw):
        """Mean cross-entropy."""
        return float(np.mean(self.loss(y, raw)))


#: Clip for class frequencies in the base scores: a class absent from y would give log(0) = -inf.
#: 1e-15 is below every frequency 1/n_samples of a present class for n_samples < 1e15.
_PROB_CLIP = 1e-15


def _sigmoid(z):
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- binning
def _check_max_bins(max_bins):
    return check_int(max_bins, "max_bins", min_val=2, max_val=65535)


def compute_bin_edges(X, max_bins=255):
    """Per-feature cut points that map each feature to at most ``max_bins`` bins.

    The rule (computed once, on the training data): if a feature has at most
    ``max_bins`` distinct values, the cuts are the midpoints between
    consecutive distinct values, so every distinct value has its own bin and
    histogram split finding sees exactly the candidate splits of exact greedy
    search. Otherwise the cuts are the quantiles of the feature at levels
    ``k / max_bins``, ``k = 1..max_bins-1`` (linear interpolation), with
    repeated cuts removed. A value ``x`` falls in bin ``#{cuts < x}``, so the
    split "bin <= b" is the threshold rule ``x <= cut_b``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite training features.
    max_bins : int, default=255
        Maximum number of bins per feature, 2 <= max_bins <= 65535.

    Returns
    -------
    list of ndarray
        ``edges[j]`` is the sorted array of cuts of feature ``j`` (length < max_bins).

    Examples
    --------
    >>> import numpy as np
    >>> compute_bin_edges(np.array([[0.0], [1.0], [1.0], [3.0]]), max_bins=255)[0].tolist()
    [0.5, 2.0]
    """
    max_bins = _check_max_bins(max_bins)
    X = _as_finite_matrix(X)
    return _bin_edges(X, max_bins)


def _bin_edges(X, max_bins):
    edges = []
    levels = np.arange(1, max_bins) / max_bins
    for j in range(X.shape[1]):
        col = X[:, j]
        uniq = np.unique(col)
        if uniq.shape[0] <= max_bins:
            cuts = 0.5 * (uniq[:-1] + uniq[1:])
        else:
            cuts = np.unique(np.quantile(col, levels))
            # A cut equal to the column maximum would leave the last bin empty.
            cuts = cuts[cuts < uniq[-1]]
        edges.append(np.ascontiguousarray(cuts, dtype=np.float64))
    return edges


def _code_dtype(max_bins):
    return np.uint8 if max_bins <= 256 else np.uint16


def _pack_edges(edges):
    ptr = np.zeros(len(edges) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([e.shape[0] for e in edges])
    flat = np.concatenate(edges) if edges else np.zeros(0)
    return np.ascontiguousarray(flat, dtype=np.float64), ptr


def bin_data(X, edges):
    """Map features to integer bin codes with the cuts of :func:`compute_bin_edges`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite features (training data or new data).
    edges : list of ndarray
        One sorted array of cuts per feature.

    Returns
    -------
    ndarray of shape (n_samples, n_features), dtype uint8 or uint16
        ``codes[i, j] = #{cuts of feature j < X[i, j]}``; uint8 when every
        feature has at most 256 bins.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> bin_data(X, compute_bin_edges(X)).ravel().tolist()
    [0, 1, 2]
    """
    X = _as_finite_matrix(X)
    edges = _check_edges(edges, X.shape[1])
    flat, ptr = _pack_edges(edges)
    n_bins_max = int(max(e.shape[0] for e in edges)) + 1
    out = np.empty(X.shape, dtype=_code_dtype(n_bins_max))
    _k.bin_columns(X, flat, ptr, out)
    return out


def _check_edges(edges, n_features):
    if not isinstance(edges, (list, tuple)) or len(edges) != n_features:
        got = len(edges) if isinstance(edges, (list, tuple)) else type(edges).__name__
        raise ValueError(
            f"edges must be a list with one array of cuts per feature of X ({n_features} features), got {got}; "
            "compute them with compute_bin_edges on data with the same columns."
        )
    out = []
    for j, e in enumerate(edges):
        e = np.asarray(e, dtype=np.float64)
        if e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
            raise ValueError(f"edges[{j}] must be a 1-D, finite, strictly increasing array.")
        if e.shape[0] > 65534:
            raise ValueError(f"edges[{j}] has more than 65534 cuts; at most 65535 bins are supported.")
        out.append(np.ascontiguousarray(e))
    return out


def build_histogram(X_binned, gradients, hessians, sample_indices=None, n_bins=None):
    """Per-feature, per-bin sums of gradients, Hessians and row counts.

    This is the data structure behind histogram split finding (LightGBM,
    XGBoost ``hist``): once it is built, every candidate split of a node is
    scored from prefix sums over bins, in time proportional to the number of
    bins rather than rows.

    Parameters
    ----------
    X_binned : ndarray of shape (n_samples, n_features), integer dtype
        Bin codes from :func:`bin_data`.
    gradients, hessians : array-like of shape (n_samples,)
        Per-sample first and second derivatives of the loss.
    sample_indices : array-like of int, optional
        Rows of the node (default: all rows).
    n_bins : int, optional
        Number of bins to allocate (default: ``X_binned.max() + 1``).

    Returns
    -------
    ndarray of shape (n_features, n_bins, 3)
        ``hist[j, b] = (sum g, sum h, count)`` over the rows with ``X_binned[:, j] == b``.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0], [1], [1]], dtype=np.uint8)
    >>> build_histogram(codes, [1.0, 2.0, 3.0], [1.0, 1.0, 1.0])[0].tolist()
    [[1.0, 1.0, 1.0], [5.0, 2.0, 2.0]]
    """
    codes = np.asarray(X_binned)
    if codes.ndim != 2:
        raise ValueError(f"X_binned must be 2-D (n_samples, n_features), got shape {codes.shape}.")
    if codes.dtype.kind not in "iu":
        raise TypeError(f"X_binned must hold integer bin codes (use bin_data), got dtype {codes.dtype}.")
    if codes.size and codes.min() < 0:
        raise ValueError("X_binned contains negative bin codes.")
    n = codes.shape[0]
    g = as_regression_target(gradients, n, name="gradients")
    h = as_regression_target(hessians, n, name="hessians")
    max_code = int(codes.max()) if codes.size else 0
    if max_code > 65535:
        raise ValueError(
            f"X_binned has bin code {max_code}, above the supported maximum 65535 (at most 65536 bins per "
            "feature); bin the data with bin_data, which never produces such codes."
        )
    if n_bins is None:
        n_bins = max_code + 1
    n_bins = check_int(n_bins, "n_bins", min_val=1, max_val=65536)
    if max_code >= n_bins:
        raise ValueError(f"X_binned has code {max_code} but n_bins={n_bins}; n_bins must exceed every code.")
    if sample_indices is None:
        rows = np.arange(n, dtype=np.int64)
    else:
        rows = np.asarray(sample_indices)
        if rows.ndim != 1 or rows.dtype.kind not in "iu":
            raise TypeError("sample_indices must be a 1-D array of integers.")
        if rows.size and (rows.min() < 0 or rows.max() >= n):
            raise ValueError(f"sample_indices must lie in [0, {n}).")
        rows = rows.astype(np.int64)
    codes = np.ascontiguousarray(codes.astype(np.uint16 if max_code > 255 else np.uint8, copy=False))
    hist = np.zeros((codes.shape[1], n_bins, 3))
    _k.histogram(codes, g, h, rows, 0, rows.shape[0], n_bins, hist)
    return hist


def _as_finite_matrix(X, name="X"):
    from ._validation import as_float_matrix

    return as_float_matrix(X, name)


# --------------------------------------------------------------------------- trees
class BoostedTree:
    """One fitted tree of a boosted ensemble (arrays indexed by node; node 0 is the root).

    Attributes
    ----------
    feature : ndarray of int
        Split feature, ``-1`` at leaves.
    threshold : ndarray of float
        Go left when ``x[feature] <= threshold`` (NaN at leaves).
    threshold_bin : ndarray of int
        The same split in bin codes: left when ``code <= threshold_bin``.
    children_left, children_right : ndarray of int
        Child node indices, ``-1`` at leaves.
    value : ndarray of float
        Leaf output ``learning_rate * (-G / (H + reg_lambda))`` (0 at internal nodes).
    gain : ndarray of float
        :func:`split_gain` of each split (0 at leaves).
    sum_gradient, sum_hessian : ndarray of float
        ``G`` and ``H`` of the rows reaching each node.
    n_node_samples : ndarray of int
        Training rows reaching each node.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(-1, 1); y = (X[:, 0] > 3).astype(float)
    >>> tree = GradientBoostingRegressor(n_estimators=1, max_depth=1).fit(X, y).trees_[0][0]
    >>> tree.threshold[0], tree.n_leaves
    (np.float64(3.5), 2)
    """

    def __init__(self, feature, threshold, threshold_bin, children_left, children_right, value, gain,
                 sum_gradient, sum_hessian, n_node_samples):
        self.feature = feature
        self.threshold = threshold
        self.threshold_bin = threshold_bin
        self.children_left = children_left
        self.children_right = children_right
        self.value = value
        self.gain = gain
        self.sum_gradient = sum_gradient
        self.sum_hessian = sum_hessian
        self.n_node_samples = n_node_samples

    @property
    def node_count(self):
        """Number of nodes."""
        return int(self.feature.shape[0])

    @property
    def n_leaves(self):
        """Number of leaves."""
        return int(np.sum(self.feature < 0))

    @property
    def depth(self):
        """Depth of the tree (0 for a single leaf)."""
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):
            if self.feature[node] >= 0:
                depth[self.children_left[node]] = depth[node] + 1
                depth[self.children_right[node]] = depth[node] + 1
        return int(depth.max())

    def _checked(self, X):
        feature = np.ascontiguousarray(self.feature, dtype=np.int64)
        check_tree_arrays(self.children_left, self.children_right, feature, internal=feature >= 0)
        need = int(feature.max()) + 1 if feature.size and feature.max() >= 0 else 0
        X = as_kernel_matrix(X, need, "X", exact=False)
        left = np.ascontiguousarray(self.children_left, dtype=np.int64)
        right = np.ascontiguousarray(self.children_right, dtype=np.int64)
        return X, feature, left, right

    def predict(self, X):
        """Leaf output for each row of ``X`` (finite, at least ``max(feature) + 1`` columns)."""
        X, feature, left, right = self._checked(X)
        value = np.ascontiguousarray(self.value, dtype=np.float64)
        if value.shape != feature.shape:
            raise ValueError("tree arrays value and feature must have the same length.")
        out = np.zeros(X.shape[0])
        _k.predict_tree(X, feature, self._thr, left, right, value, out)
        return out

    def apply(self, X):
        """Leaf index for each row of ``X`` (finite, at least ``max(feature) + 1`` columns)."""
        X, feature, left, right = self._checked(X)
        out = np.empty(X.shape[0], dtype=np.int64)
        _k.apply_tree(X, feature, self._thr, left, right, out)
        return out

    @property
    def _thr(self):
        thr = np.asarray(self.threshold, dtype=np.float64)
        if thr.shape != np.shape(self.feature):
            raise ValueError("tree arrays threshold and feature must have the same length.")
        return np.ascontiguousarray(np.where(np.asarray(self.feature) >= 0, thr, 0.0))

    def to_text(self, feature_names=None, decimals=4):
        """Indented text rendering of the tree (one line per node).

        Parameters
        ----------
        feature_names : list of str, optional
            Names of the features (default ``x0, x1, ...``).
        decimals : int, default=4
            Rounding of thresholds, gains and leaf values.

        Returns
        -------
        str
        """
        if feature_names is not None:
            if isinstance(feature_names, (str, bytes)) or not hasattr(feature_names, "__len__"):
                raise TypeError(
                    f"feature_names must be a list of strings, one per feature, got {type(feature_names).__name__}."
                )
            used = np.asarray(self.feature)[np.asarray(self.feature) >= 0]
            need = int(used.max()) + 1 if used.size else 0
            if len(feature_names) < need:
                raise ValueError(
                    f"feature_names has {len(feature_names)} names but the tree splits on feature index "
                    f"{need - 1}; give one name per column of X (at least {need} names)."
                )
        lines = []
        stack = [(0, 0)]
        while stack:
            node, depth = stack.pop()
            pad = "|   " * depth
            stats = f"G={self.sum_gradient[node]:.{decimals}g}, H={self.sum_hessian[node]:.{decimals}g}, " \
                f"n={self.n_node_samples[node]}"
            if self.feature[node] < 0:
                lines.append(f"{pad}leaf value={self.value[node]:.{decimals}g} ({stats})")
                continue
            j = int(self.feature[node])
            name = feature_names[j] if feature_names is not None else f"x{j}"
            lines.append(f"{pad}{name} <= {self.threshold[node]:.{decimals}g} "
                         f"(gain={self.gain[node]:.{decimals}g}, {stats})")
            stack.append((int(self.children_right[node]), depth + 1))
            stack.append((int(self.children_left[node]), depth + 1))
        return "\n".join(lines)

    def __repr__(self):
        return f"BoostedTree(node_count={self.node_count}, n_leaves={self.n_leaves})"


# --------------------------------------------------------------------------- estimators
class _BaseBooster(BaseEstimator):
    def __init__(self, n_estimators=100, learning_rate=0.1, max_depth=3, reg_lambda=1.0, gamma=0.0,
                 min_child_weight=1.0, max_bins=255, early_stopping_rounds=None, validation_fraction=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_bins = max_bins
        self.early_stopping_rounds = early_stopping_rounds
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    def _check_params(self):
        p = {}
        p["n_estimators"] = check_int(self.n_estimators, "n_estimators", min_val=1)
        p["learning_rate"] = check_real(self.learning_rate, "learning_rate", min_val=0.0, max_val=1.0,
                                        include_boundaries="right")
        p["max_depth"] = check_int(self.max_depth, "max_depth", min_val=1, max_val=20)
        p["reg_lambda"] = check_real(self.reg_lambda, "reg_lambda", min_val=0.0)
        p["gamma"] = check_real(self.gamma, "gamma", min_val=0.0)
        p["min_child_weight"] = check_real(self.min_child_weight, "min_child_weight", min_val=0.0)
        p["max_bins"] = _check_max_bins(self.max_bins)
        p["early_stopping_rounds"] = check_int(self.early_stopping_rounds, "early_stopping_rounds", min_val=1,
                                               allow_none=True)
        vf = self.validation_fraction
        if vf is not None:
            vf = check_real(vf, "validation_fraction", min_val=0.0, max_val=1.0, include_boundaries="neither")
        p["validation_fraction"] = vf
        if p["reg_lambda"] == 0.0 and p["min_child_weight"] == 0.0:
            raise ValueError(
                "reg_lambda=0 together with min_child_weight=0 allows leaves with H = 0 and an undefined "
                "weight -G/(H + lambda); set reg_lambda > 0 or min_child_weight > 0."
            )
        return p

    def _fit(self, X, y_enc, loss, eval_set, stratify):
        p = self._check_params()
        X_val = y_val = None
        if eval_set is not None:
            if p["validation_fraction"] is not None:
                raise ValueError("Give either eval_set in fit or validation_fraction, not both.")
            if not (isinstance(eval_set, (tuple, list)) and len(eval_set) == 2):
                raise TypeError("eval_set must be a pair (X_val, y_val).")
            X_val = validate_data(self, eval_set[0], reset=False, dtype=np.float64, order="C")
            y_val = self._encode_eval_target(eval_set[1], X_val.shape[0])
        elif p["validation_fraction"] is not None:
            rng = check_random_state(self.random_state)
            n_val = int(np.ceil(p["validation_fraction"] * X.shape[0]))
            if n_val < 1 or X.shape[0] - n_val < 2:
                raise ValueError(
                    f"validation_fraction={p['validation_fraction']} leaves too few rows for training and "
                    f"validation with n_samples={X.shape[0]}."
                )
            X, X_val, y_enc, y_val = train_test_split(
                X, y_enc, test_size=n_val, random_state=rng, stratify=y_enc if stratify else None
            )
            X = np.ascontiguousarray(X)
            X_val = np.ascontiguousarray(X_val)
        if p["early_stopping_rounds"] is not None and X_val is None:
            raise ValueError(
                "early_stopping_rounds needs a validation set: pass eval_set=(X_val, y_val) to fit or set "
                "validation_fraction."
            )

        edges = _bin_edges(X, p["max_bins"])
        flat, ptr = _pack_edges(edges)
        n_bins = np.array([e.shape[0] + 1 for e in edges], dtype=np.int64)
        n_bins_max = int(n_bins.max())
        codes = np.empty(X.shape, dtype=_code_dtype(n_bins_max))
        _k.bin_columns(X, flat, ptr, codes)

        K = loss.n_outputs
        base = loss.base_score(y_enc)
        raw = np.tile(base, (X.shape[0], 1))
        raw_val = None if X_val is None else np.tile(base, (X_val.shape[0], 1))

        def _score(yy, rr):
            return loss.score(yy, rr[:, 0] if K == 1 else rr)

        trees, train_score, val_score = [], [], []
        best, best_it, since_best = np.inf, 0, 0
        for it in range(p["n_estimators"]):
            g, h = loss.gradient_hessian(y_enc, raw[:, 0] if K == 1 else raw)
            g = g.reshape(X.shape[0], K)
            h = h.reshape(X.shape[0], K)
            round_trees = []
            for k in range(K):
                gk = np.ascontiguousarray(g[:, k])
                hk = np.ascontiguousarray(h[:, k])
                rk = np.ascontiguousarray(raw[:, k])
                out = _k.grow_tree(codes, gk, hk, n_bins, n_bins_max, p["max_depth"], p["reg_lambda"],
                                   p["gamma"], p["min_child_weight"], p["learning_rate"], rk)
                raw[:, k] = rk
                feat, sbin, left, right, value, gain, sg, sh, cnt, _ = out
                thr = np.full(feat.shape[0], np.nan)
                internal = feat >= 0
                thr[internal] = flat[ptr[feat[internal]] + sbin[internal]]
                tree = BoostedTree(feat, thr, sbin, left, right, value, gain, sg, sh, cnt)
                round_trees.append(tree)
                if raw_val is not None:
                    raw_val[:, k] += tree.predict(X_val)
            trees.append(round_trees)
            train_score.append(_score(y_enc, raw))
            if raw_val is not None:
                s = _score(y_val, raw_val)
                val_score.append(s)
                if s < best:
                    best, best_it, since_best = s, it, 0
                else:
                    since_best += 1
                if p["early_stopping_rounds"] is not None and since_best >= p["early_stopping_rounds"]:
                    break

        if p["early_stopping_rounds"] is not None:
            self.best_iteration_ = int(best_it)
            trees = trees[: best_it + 1]
        else:
            self.best_iteration_ = len(trees) - 1
        self.trees_ = trees
        self.n_estimators_ = len(trees)
        self.base_score_ = base if K > 1 else float(base[0])
        self.bin_edges_ = edges
        self.train_score_ = np.array(train_score)
        self.validation_score_ = np.array(val_score) if raw_val is not None else None
        return self

    def _raw_predict(self, X, n_trees=None):
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        K = len(self.trees_[0])
        raw = np.tile(np.atleast_1d(self.base_score_), (X.shape[0], 1))
        for round_trees in self.trees_[:n_trees]:
            for k, tree in enumerate(round_trees):
                raw[:, k] += tree.predict(X)
        return raw if K > 1 else raw[:, 0]

    def _staged_raw(self, X):
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        K = len(self.trees_[0])
        raw = np.tile(np.atleast_1d(self.base_score_), (X.shape[0], 1))
        for round_trees in self.trees_:
            for k, tree in enumerate(round_trees):
                raw[:, k] += tree.predict(X)
            yield (raw if K > 1 else raw[:, 0]).copy()

    @property
    def feature_importances_(self):
        """Total split gain per feature over all trees, normalised to sum to 1 (zeros if no split)."""
        check_is_fitted(self, "trees_")
        imp = np.zeros(self.n_features_in_)
        for round_trees in self.trees_:
            for tree in round_trees:
                internal = tree.feature >= 0
                np.add.at(imp, tree.feature[internal], tree.gain[internal])
        total = imp.sum()
        return imp / total if total > 0 else imp

    def apply(self, X):
        """Leaf index of every row in every tree, shape (n_samples, ``n_estimators_``, n_trees_per_round)."""
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        out = np.empty((X.shape[0], len(self.trees_), len(self.trees_[0])), dtype=np.int64)
        for t, round_trees in enumerate(self.trees_):
            for k, tree in enumerate(round_trees):
                out[:, t, k] = tree.apply(X)
        return out


def _check_target_scale(y, name="y"):
    """Refuse a regression target so large that the squared-error arithmetic overflows.

    A node's gradient sum ``G`` is at most ``n_samples * 2 max|y|`` and the split gain squares it
    (``G^2 / (H + lambda)``), the training loss squares residuals: with ``n_samples * max|y|`` at
    most 1e150 every such square stays below ~4e300 < 1.8e308. Ordinary targets are far below.
    """
    return check_magnitude(
        y, name, limit=MAX_SQUARABLE / y.shape[0],
        why=f"with {y.shape[0]} samples the split gains square sums of gradients of this size, which overflow "
            "float64 (n_samples * max|y| must stay below 1e150)",
        fix=f"rescale {name} (e.g. divide it by its standard deviation) and multiply the predictions back",
    )


class GradientBoostingRegressor(RegressorMixin, _BaseBooster):
    """Gradient-boosted trees for regression with squared error (XGBoost-style, histogram splits).

    Starting from the mean of ``y``, each round grows one depth-wise tree on
    the gradients ``g_i = f_i - y_i`` and Hessians ``h_i = 1`` of the squared
    error ``(y - f)^2 / 2``, with leaf weights :func:`leaf_weight` and split
    gains :func:`split_gain`, and adds ``learning_rate`` times it.

    Units of ``y``: shifting ``y`` only moves ``base_score_``. As in XGBoost, ``reg_lambda``
    and ``gamma`` are in units of ``y`` (gradients scale with ``y``, Hessians do not), so
    rescaling ``y`` changes their effect; with both at 0 the predictions rescale with ``y``.
    Split gains square sums of gradients, so ``fit`` refuses a ``y`` whose magnitude times the
    number of samples exceeds 1e150 (those squares would overflow float64) with a ``ValueError``
    that says to rescale ``y``.

    Parameters
    ----------
    n_estimators : int, default=100
        Maximum number of boosting rounds (trees).
    learning_rate : float, default=0.1
        Shrinkage ``eta`` in (0, 1].
    max_depth : int, default=3
        Depth of every tree (1 = stumps), 1..20. A node is split while its
        depth is below ``max_depth`` and its best gain is positive.
    reg_lambda : float, default=1.0
        L2 penalty ``lambda`` >= 0 on leaf weights.
    gamma : float, default=0.0
        Penalty per leaf ``gamma`` >= 0 in the gain (XGBoost's ``gamma`` is twice this; see module notes).
    min_child_weight : float, default=1.0
        Minimum Hessian sum in each child of a split (for squared error: rows).
    max_bins : int, default=255
        Maximum number of histogram bins per feature, 2..65535 (see :func:`compute_bin_edges`).
    early_stopping_rounds : int or None, default=None
        Stop when the validation loss has not improved for this many rounds
        and keep the trees up to the best round. Needs ``eval_set`` in
        :meth:`fit` or ``validation_fraction``.
    validation_fraction : float in (0, 1) or None, default=None
        Hold out this fraction of the training rows (drawn with
        ``random_state``) as the validation set.
    random_state : int, RandomState or None, default=None
        Seed for the validation split (the only random choice).

    Attributes
    ----------
    trees_ : list of list of BoostedTree
        ``trees_[t][0]`` is the tree of round ``t``.
    n_estimators_ : int
        Number of trees kept.
    base_score_ : float
        Initial prediction, the mean of the training targets.
    bin_edges_ : list of ndarray
        Cuts per feature.
    train_score_ : ndarray
        Training MSE after each round (``train_score_[t]`` = with ``t + 1`` trees).
    validation_score_ : ndarray or None
        Validation MSE after each round, if a validation set was given.
    best_iteration_ : int
        0-based round with the lowest validation loss under early stopping,
        otherwise the last round.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    feature_importances_ : ndarray of shape (n_features,)
        Total gain of the splits on each feature, normalised to sum to 1.

    Examples
    --------
    >>> from tabular_trees.datasets import make_sine
    >>> X, y = make_sine(200, random_state=0)
    >>> model = GradientBoostingRegressor(n_estimators=50, max_depth=2, random_state=0).fit(X, y)
    >>> model.score(X, y) > 0.8
    True
    """

    def fit(self, X, y, eval_set=None):
        """Fit the ensemble.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features (finite; no missing values).
        y : array-like of shape (n_samples,)
            Targets.
        eval_set : tuple (X_val, y_val), optional
            Validation data for ``validation_score_`` and early stopping.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_min_samples=2, y_numeric=True)
        y = _check_target_scale(as_regression_target(y, X.shape[0]))
        return self._fit(X, y, SquaredError(), eval_set, stratify=False)

    def _encode_eval_target(self, y, n):
        return _check_target_scale(as_regression_target(y, n, name="eval_set y"), "eval_set y")

    def predict(self, X):
        """Predicted values, shape (n_samples,)."""
        return self._raw_predict(X)

    def staged_predict(self, X):
        """Yield the predictions after each round (1, 2, ..., ``n_estimators_`` trees)."""
        yield from self._staged_raw(X)


class GradientBoostingClassifier(ClassifierMixin, _BaseBooster):
    """Gradient-boosted trees for classification (binary log-loss, multiclass softmax).

    Binary: one tree per round on the log-odds with :class:`LogisticLoss`,
    starting from the log-odds of the class prior. More than two classes: one
    tree per class and round on the softmax cross-entropy (:class:`SoftmaxLoss`),
    starting from the log class frequencies. Parameters are those of
    :class:`GradientBoostingRegressor`; the validation split of
    ``validation_fraction`` is stratified.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    trees_ : list of list of BoostedTree
        ``trees_[t][k]``: tree of round ``t`` for class ``k`` (one per round if binary).
    base_score_ : float or ndarray
        Initial raw score(s).
    train_score_, validation_score_ : ndarray
        Mean log-loss after each round.
    best_iteration_, n_estimators_, bin_edges_, n_features_in_, feature_importances_
        As in :class:`GradientBoostingRegressor`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GradientBoostingClassifier(n_estimators=30, max_depth=2).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    def fit(self, X, y, eval_set=None):
        """Fit the ensemble.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features (finite; no missing values).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        eval_set : tuple (X_val, y_val), optional
            Validation data for ``validation_score_`` and early stopping.

        Returns
        -------
        self
        """
        if y is not None:
            reject_missing_labels(y)
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_min_samples=2)
        check_classification_targets(y)
        classes, codes = as_class_target(y, X.shape[0])
        self.classes_ = classes
        loss = LogisticLoss() if classes.shape[0] == 2 else SoftmaxLoss(classes.shape[0])
        return self._fit(X, codes, loss, eval_set, stratify=True)

    def _encode_eval_target(self, y, n):
        arr = np.asarray(y)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise ValueError(f"eval_set y must be 1-D with {n} labels.")
        idx = np.searchsorted(self.classes_, arr)
        idx = np.clip(idx, 0, self.classes_.shape[0] - 1)
        if not np.all(self.classes_[idx] == arr):
            raise ValueError("eval_set y contains labels that are not in the training classes.")
        return idx.astype(np.int64)

    def decision_function(self, X):
        """Raw scores: log-odds (binary, shape (n,)) or per-class scores (n, K)."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes)."""
        return self._proba(self._raw_predict(X))

    def _proba(self, raw):
        if raw.ndim == 1:
            p = _sigmoid(raw)
            return np.column_stack([1.0 - p, p])
        return _softmax(raw)

    def predict(self, X):
        """Most probable class label."""
        check_is_fitted(self, "trees_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def staged_predict_proba(self, X):
        """Yield class probabilities after each round."""
        for raw in self._staged_raw(X):
            yield self._proba(raw)

    def staged_predict(self, X):
        """Yield predicted labels after each round."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
