"""Soft decision trees stored in flat arrays.

A tree is a handful of NumPy arrays indexed by node id: ``left`` and ``right``
(child ids, ``-1`` for a leaf), ``feature`` (split index κ, used by the
soft-decision-function model HMC-DF), ``threshold`` (τ in the min–max scaled
input space), ``simplex`` (one row Δ per node, used by the soft-index model
HMC-DFI) and ``value`` (leaf mean μ for regression). Nodes are kept in an order
where every parent comes before its children, so one forward sweep computes
the probability of reaching every node and one backward sweep propagates
gradients. Because compiled kernels only ever see these arrays, nothing is
recompiled when the topology changes.

The split at internal node η sends an input right with probability

.. math:: ψ(x) = f\\big((x_{κ_η} - τ_η)/h\\big) \\quad\\text{or}\\quad
          ψ(x) = f\\big((x·Δ_η - τ_η)/h\\big),

with the logistic function f and softness ``h > 0``; as ``h → 0`` the split
becomes the hard rule "right if ``x_κ > τ``".
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import as_float_matrix, check_int, check_real
from ._soft_split_tree_kernels import _hard_route, _node_probabilities

__all__ = ["SoftTree", "soft_leaf_probabilities", "predict_soft_tree", "predict_hard_tree", "tree_leaf_weights"]


class SoftTree:
    """A binary soft decision tree in flat arrays (see the module docstring).

    Parameters
    ----------
    n_features : int
        Number of input features.
    use_simplex : bool, default=False
        ``False`` for the soft decision function (split on one feature κ, HMC-DF),
        ``True`` for the soft index (split on ``x·Δ`` with Δ on the simplex, HMC-DFI).

    Notes
    -----
    A new tree is a single leaf (the root). :meth:`grow` and :meth:`prune` return new
    trees; ``grow(leaf, ...)`` followed by ``prune(leaf)`` restores the original
    arrays exactly (the grown children are appended at the end and the left child
    inherits the leaf's value).

    Examples
    --------
    >>> import numpy as np
    >>> t = SoftTree(2).grow(0, feature=1, threshold=0.5, simplex=None, right_value=2.0)
    >>> t.n_leaves, t.internal_nodes().tolist()
    (2, [0])
    >>> predict_hard_tree(t, np.array([[0.0, 0.2], [0.0, 0.9]])).tolist()
    [0.0, 2.0]
    """

    def __init__(self, n_features, use_simplex=False):
        self.n_features = check_int(n_features, "n_features", min_val=1, max_val=10**6)
        if not isinstance(use_simplex, (bool, np.bool_)):
            raise TypeError(f"use_simplex must be True or False, got {use_simplex!r}.")
        self.use_simplex = bool(use_simplex)
        self.left = np.full(1, -1, dtype=np.int64)
        self.right = np.full(1, -1, dtype=np.int64)
        self.feature = np.zeros(1, dtype=np.int64)
        self.threshold = np.full(1, 0.5)
        self.simplex = np.full((1, self.n_features), 1.0 / self.n_features)
        self.value = np.zeros(1)
        self.depth = np.zeros(1, dtype=np.int64)

    # ------------------------------------------------------------------ structure
    @property
    def n_nodes(self):
        return int(self.left.shape[0])

    @property
    def n_leaves(self):
        return int(np.sum(self.left < 0))

    def _node_id(self, node, name="node"):
        if isinstance(node, (bool, np.bool_)) or not isinstance(node, (numbers.Integral, np.integer)):
            raise TypeError(f"{name} must be an int node id in 0..{self.n_nodes - 1}, got {node!r}.")
        if not 0 <= int(node) < self.n_nodes:
            raise ValueError(f"{name} must be a node id in 0..{self.n_nodes - 1}, got {node}.")
        return int(node)

    def is_leaf(self, node):
        return bool(self.left[self._node_id(node)] < 0)

    def leaves(self):
        """Leaf ids in node order."""
        return np.flatnonzero(self.left < 0)

    def internal_nodes(self):
        """Internal node ids in node order."""
        return np.flatnonzero(self.left >= 0)

    def prunable_nodes(self):
        """Internal nodes whose two children are both leaves (the n_f nodes of a prune move)."""
        nodes = self.internal_nodes()
        keep = [n for n in nodes if self.left[self.left[n]] < 0 and self.left[self.right[n]] < 0]
        return np.asarray(keep, dtype=np.int64)

    def copy(self):
        t = SoftTree.__new__(SoftTree)
        t.n_features = self.n_features
        t.use_simplex = self.use_simplex
        for name in ("left", "right", "feature", "threshold", "simplex", "value", "depth"):
            setattr(t, name, getattr(self, name).copy())
        return t

    def grow(self, leaf, feature, threshold, simplex, right_value):
        """Split ``leaf``; the left child keeps the leaf's value, the right child gets ``right_value``."""
        leaf = self._node_id(leaf, "leaf")
        if not self.is_leaf(leaf):
            raise ValueError(f"node {leaf} is not a leaf; only leaves can be grown.")
        feature = check_int(feature, "feature", min_val=0, max_val=self.n_features - 1)
        threshold = check_real(threshold, "threshold")
        right_value = check_real(right_value, "right_value")
        if simplex is not None:
            simplex = np.asarray(simplex, dtype=np.float64)
            if simplex.shape != (self.n_features,) or not np.all(np.isfinite(simplex)) or np.any(simplex < 0) \
                    or abs(simplex.sum() - 1.0) > 1e-8:
                raise ValueError(f"simplex must be None or {self.n_features} non-negative weights summing to 1, "
                                 f"got {simplex!r}.")
        t = self.copy()
        n = t.n_nodes
        t.left = np.append(t.left, [-1, -1])
        t.right = np.append(t.right, [-1, -1])
        t.left[leaf], t.right[leaf] = n, n + 1
        t.feature = np.append(t.feature, [0, 0])
        t.feature[leaf] = int(feature)
        t.threshold = np.append(t.threshold, [0.5, 0.5])
        t.threshold[leaf] = float(threshold)
        row = np.full((2, t.n_features), 1.0 / t.n_features)
        t.simplex = np.vstack([t.simplex, row])
        if simplex is not None:
            t.simplex[leaf] = simplex
        t.value = np.append(t.value, [self.value[leaf], float(right_value)])
        t.depth = np.append(t.depth, [self.depth[leaf] + 1, self.depth[leaf] + 1])
        return t

    def prune(self, node):
        """Collapse ``node`` (both children leaves) into a leaf with its left child's value.

        Returns the new tree and the removed parameters as a dict (``feature``,
        ``threshold``, ``simplex``, ``right_value``).
        """
        node = self._node_id(node)
        lc, rc = int(self.left[node]), int(self.right[node])
        if lc < 0 or self.left[lc] >= 0 or self.left[rc] >= 0:
            raise ValueError(f"node {node} cannot be pruned: both children must be leaves.")
        removed = dict(
            feature=int(self.feature[node]),
            threshold=float(self.threshold[node]),
            simplex=self.simplex[node].copy(),
            right_value=float(self.value[rc]),
        )
        keep = np.ones(self.n_nodes, dtype=bool)
        keep[[lc, rc]] = False
        new_id = np.cumsum(keep) - 1
        t = self.copy()
        t.value[node] = self.value[lc]
        t.left[node] = -1
        t.right[node] = -1
        t.feature[node] = 0
        t.threshold[node] = 0.5
        t.simplex[node] = 1.0 / t.n_features
        for name in ("left", "right", "feature", "threshold", "simplex", "value", "depth"):
            setattr(t, name, np.ascontiguousarray(getattr(t, name)[keep]))
        inner = t.left >= 0
        t.left[inner] = new_id[t.left[inner]]
        t.right[inner] = new_id[t.right[inner]]
        return t, removed

    def same_as(self, other, atol=0.0):
        """True if both trees have identical arrays (up to ``atol`` for real values)."""
        if not isinstance(other, SoftTree):
            raise TypeError(f"other must be a SoftTree, got {type(other).__name__}.")
        atol = check_real(atol, "atol", min_val=0.0)
        if self.n_nodes != other.n_nodes:
            return False
        ints = all(np.array_equal(getattr(self, a), getattr(other, a)) for a in ("left", "right", "depth"))
        inner = self.left >= 0
        feat = np.array_equal(self.feature[inner], other.feature[inner]) or self.use_simplex
        reals = all(
            np.allclose(getattr(self, a), getattr(other, a), atol=atol, rtol=0)
            for a in ("threshold", "value")
        )
        simp = (not self.use_simplex) or np.allclose(self.simplex[inner], other.simplex[inner], atol=atol, rtol=0)
        return ints and feat and reals and simp

    def __repr__(self):
        return f"SoftTree(n_leaves={self.n_leaves}, n_features={self.n_features}, use_simplex={self.use_simplex})"


def _check_tree(tree, name="tree"):
    """Raise unless ``tree`` is a well-formed SoftTree the compiled kernels can walk safely.

    Checked: array lengths and dtypes agree, every internal node has two children stored after
    it (so sweeps in node order are valid and no index leaves the arrays), every node except the
    root has exactly one parent, split indices lie in ``0..n_features-1``, thresholds, simplex rows
    and leaf values are finite. Runs before every kernel call (trees are plain mutable arrays).
    """
    if not isinstance(tree, SoftTree):
        raise TypeError(f"{name} must be a SoftTree, got {type(tree).__name__}.")
    n = tree.left.shape[0] if isinstance(getattr(tree, "left", None), np.ndarray) else -1
    p = tree.n_features
    ok = n >= 1 and isinstance(p, int) and p >= 1
    if ok:
        for attr, kind in (("left", "i"), ("right", "i"), ("feature", "i"), ("depth", "i"), ("threshold", "f"),
                           ("value", "f")):
            arr = getattr(tree, attr, None)
            if not isinstance(arr, np.ndarray) or arr.shape != (n,) or arr.dtype.kind != kind:
                raise ValueError(f"{name}.{attr} must be a 1-D {'integer' if kind == 'i' else 'float'} array of "
                                 f"length {n} (one entry per node); build trees with SoftTree.grow / prune.")
        simplex = getattr(tree, "simplex", None)
        if not isinstance(simplex, np.ndarray) or simplex.shape != (n, p) or simplex.dtype.kind != "f":
            raise ValueError(f"{name}.simplex must be a float array of shape ({n}, {p}).")
    else:
        raise ValueError(f"{name} is not a valid SoftTree (no nodes or no features).")
    left, right = tree.left, tree.right
    inner = left >= 0
    ids = np.arange(n)
    if np.any((left < 0) != (right < 0)) or np.any(left[~inner] != -1) or np.any(right[~inner] != -1):
        raise ValueError(f"{name}: every node needs two children or none (left = right = -1 for a leaf).")
    kids = np.concatenate([left[inner], right[inner]])
    if np.any(kids <= np.concatenate([ids[inner], ids[inner]])) or np.any(kids >= n) or \
            np.unique(kids).shape[0] != kids.shape[0] or kids.shape[0] != n - 1:
        raise ValueError(f"{name}: children must be stored after their parent, inside the arrays, each node "
                         "(except the root) with exactly one parent; build trees with SoftTree.grow / prune.")
    feat = tree.feature[inner]
    if np.any(feat < 0) or np.any(feat >= p):
        bad = int(feat[(feat < 0) | (feat >= p)][0])
        raise ValueError(f"{name} splits on feature {bad}, but it has {p} features (indices 0..{p - 1}).")
    if not (np.all(np.isfinite(tree.threshold)) and np.all(np.isfinite(tree.value))
            and np.all(np.isfinite(tree.simplex))):
        raise ValueError(f"{name} has NaN or infinite thresholds, simplex weights or leaf values.")
    for attr in ("left", "right", "feature", "threshold", "simplex", "value"):
        arr = getattr(tree, attr)
        if not arr.flags.c_contiguous or arr.dtype not in (np.int64, np.float64):
            setattr(tree, attr, np.ascontiguousarray(arr, dtype=np.int64 if arr.dtype.kind == "i" else np.float64))
    return tree


def _check_tree_input(tree, X):
    _check_tree(tree)
    X = as_float_matrix(X, "X")
    if X.shape[1] != tree.n_features:
        raise ValueError(f"X has {X.shape[1]} features but the tree was built for {tree.n_features}.")
    return X


def soft_leaf_probabilities(tree, X, h):
    """Probability φ_{ik} that row i reaches leaf k (Eq. 5 of Cochrane et al.).

    Parameters
    ----------
    tree : SoftTree
    X : array-like of shape (n_samples, n_features)
        Inputs on the tree's (min–max scaled) scale.
    h : float
        Softness, ``h > 0``.

    Returns
    -------
    phi : ndarray of shape (n_samples, n_leaves)
        Rows sum to one; columns follow ``tree.leaves()``.

    Examples
    --------
    >>> t = SoftTree(1).grow(0, 0, 0.5, None, 1.0)
    >>> soft_leaf_probabilities(t, [[0.5]], h=0.1).round(3).tolist()
    [[0.5, 0.5]]
    """
    X = _check_tree_input(tree, X)
    h = check_real(h, "h", min_val=0.0, include_boundaries="neither")
    phi = np.zeros((X.shape[0], tree.n_nodes))
    psi = np.zeros((X.shape[0], tree.n_nodes))
    _node_probabilities(X, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex,
                        tree.use_simplex, h, phi, psi)
    return phi[:, tree.leaves()]


def predict_soft_tree(tree, X, h):
    """Soft-tree regression output Σ_k φ_k(x) μ_k.

    Examples
    --------
    >>> t = SoftTree(1).grow(0, 0, 0.5, None, 1.0)
    >>> float(predict_soft_tree(t, [[0.9]], h=1e-3)[0])
    1.0
    """
    phi = soft_leaf_probabilities(tree, X, h)
    return phi @ tree.value[tree.leaves()]


def predict_hard_tree(tree, X):
    """Hard-split prediction (the h → 0 limit): the value of the leaf each row reaches.

    Examples
    --------
    >>> t = SoftTree(1).grow(0, 0, 0.5, None, 3.0)
    >>> predict_hard_tree(t, [[0.2], [0.7]]).tolist()
    [0.0, 3.0]
    """
    X = _check_tree_input(tree, X)
    out = np.zeros(X.shape[0], dtype=np.int64)
    _hard_route(X, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex, tree.use_simplex, out)
    return tree.value[out]


def tree_leaf_weights(tree, X, h=None):
    """Weight with which each row reaches each leaf: soft (``h > 0``) or hard (``h=None``) routing.

    This is the per-tree building block of every posterior prediction: a regression
    tree predicts ``W @ tree.value[tree.leaves()]`` and a classification sample
    ``W @ P`` with its leaf class probabilities ``P``.

    Parameters
    ----------
    tree : SoftTree
    X : array-like of shape (n_samples, n_features)
        Inputs on the tree's (min–max scaled) scale.
    h : float or None, default=None
        Softness of the splits; ``None`` routes every row to one leaf (right iff the
        split value exceeds τ), giving one-hot rows.

    Returns
    -------
    W : ndarray of shape (n_samples, n_leaves)
        Rows sum to one; columns follow ``tree.leaves()``.

    Examples
    --------
    >>> t = SoftTree(1).grow(0, 0, 0.5, None, 1.0)
    >>> tree_leaf_weights(t, [[0.2], [0.9]]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if h is not None:
        return soft_leaf_probabilities(tree, X, h)
    X = _check_tree_input(tree, X)
    out = np.zeros(X.shape[0], dtype=np.int64)
    _hard_route(X, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex, tree.use_simplex, out)
    leaves = tree.leaves()
    return (out[:, None] == leaves[None, :]).astype(np.float64)
