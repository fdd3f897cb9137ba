"""One boosted tree: its growth on (gradient, Hessian) pairs of binned data and its node arrays.

Trees grow depth-wise to ``max_depth`` (``max_depth=1`` gives stumps) in the compiled kernel
``tabular_trees.boosting._boosting_kernels.grow_tree``; a node is split while its best gain (with
``-gamma``) is positive. :class:`BoostedTree` holds the result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_kernel_matrix, check_tree_arrays
from . import _boosting_kernels as _k

__all__ = ["BoostedTree"]


@dataclass(eq=False, repr=False)
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
    >>> from tabular_trees.boosting import GradientBoostingRegressor
    >>> X = np.arange(8.0).reshape(-1, 1); y = (X[:, 0] > 3).astype(float)
    >>> tree = GradientBoostingRegressor(n_estimators=1, max_depth=1).fit(X, y).trees_[0][0]
    >>> tree.threshold[0], tree.n_leaves
    (np.float64(3.5), 2)
    """

    feature: np.ndarray
    threshold: np.ndarray
    threshold_bin: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray
    gain: np.ndarray
    sum_gradient: np.ndarray
    sum_hessian: np.ndarray
    n_node_samples: np.ndarray

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

    def _walk_arrays(self, X):
        """Validated ``X`` and the node arrays a compiled traversal reads: feature, threshold, left, right."""
        feature = np.ascontiguousarray(self.feature, dtype=np.int64)
        check_tree_arrays(self.children_left, self.children_right, feature, internal=feature >= 0)
        need = int(feature.max()) + 1 if feature.size and feature.max() >= 0 else 0
        X = as_kernel_matrix(X, need, "X", exact=False)
        thr = np.asarray(self.threshold, dtype=np.float64)
        if thr.shape != feature.shape:
            raise ValueError("tree arrays threshold and feature must have the same length.")
        thr = np.ascontiguousarray(np.where(feature >= 0, thr, 0.0))
        left = np.ascontiguousarray(self.children_left, dtype=np.int64)
        right = np.ascontiguousarray(self.children_right, dtype=np.int64)
        return X, feature, thr, left, right

    def predict(self, X):
        """Leaf output for each row of ``X`` (finite, at least ``max(feature) + 1`` columns).

        Examples
        --------
        >>> import numpy as np
        >>> tree = BoostedTree(np.array([0, -1, -1]), np.array([0.5, np.nan, np.nan]), np.array([0, -1, -1]),
        ...                    np.array([1, -1, -1]), np.array([2, -1, -1]), np.array([0.0, -1.0, 1.0]),
        ...                    np.zeros(3), np.zeros(3), np.zeros(3), np.array([2, 1, 1]))
        >>> tree.predict(np.array([[0.0], [1.0]])).tolist(), tree.apply(np.array([[0.0], [1.0]])).tolist()
        ([-1.0, 1.0], [1, 2])
        """
        X, feature, thr, left, right = self._walk_arrays(X)
        value = np.ascontiguousarray(self.value, dtype=np.float64)
        if value.shape != feature.shape:
            raise ValueError("tree arrays value and feature must have the same length.")
        out = np.zeros(X.shape[0])
        _k.predict_tree(X, feature, thr, left, right, value, out)
        return out

    def apply(self, X):
        """Leaf index for each row of ``X`` (finite, at least ``max(feature) + 1`` columns)."""
        X, feature, thr, left, right = self._walk_arrays(X)
        out = np.empty(X.shape[0], dtype=np.int64)
        _k.apply_tree(X, feature, thr, left, right, out)
        return out

    def to_text(self, feature_names=None, decimals=4):
        """Indented text rendering of the tree (one line per node).

        Parameters
        ----------
        feature_names : list of str, optional
            Names of the features (default ``x0, x1, ...``), at least one per feature the tree splits on.
        decimals : int, default=4
            Rounding of thresholds, gains and leaf values.

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np
        >>> tree = BoostedTree(np.array([0, -1, -1]), np.array([0.5, np.nan, np.nan]), np.array([0, -1, -1]),
        ...                    np.array([1, -1, -1]), np.array([2, -1, -1]), np.array([0.0, -1.0, 1.0]),
        ...                    np.array([2.0, 0, 0]), np.zeros(3), np.array([2.0, 1, 1]), np.array([2, 1, 1]))
        >>> print(tree.to_text(feature_names=["age"]))
        age <= 0.5 (gain=2, G=0, H=2, n=2)
        |   leaf value=-1 (G=0, H=1, n=1)
        |   leaf value=1 (G=0, H=1, n=1)
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


def grow(binned, grad, hess, settings, raw_pred):
    """Grow one tree on ``binned = (codes, flat, ptr, n_bins)`` and add its leaf values to ``raw_pred``.

    ``grad``, ``hess`` and ``raw_pred`` are C-contiguous float arrays of one output (``raw_pred`` is
    updated in place); ``settings`` is a :class:`~tabular_trees.boosting._boosting_kernels.GrowSettings`.
    Thresholds are the cuts of the chosen bins, ``flat[ptr[feature] + bin]``.
    """
    codes, flat, ptr, n_bins = binned
    feat, sbin, left, right, value, gain, sg, sh, cnt, _ = _k.grow_tree(
        codes, grad, hess, n_bins, int(n_bins.max()), settings, raw_pred
    )
    thr = np.full(feat.shape[0], np.nan)
    internal = feat >= 0
    thr[internal] = flat[ptr[feat[internal]] + sbin[internal]]
    return BoostedTree(feat, thr, sbin, left, right, value, gain, sg, sh, cnt)
