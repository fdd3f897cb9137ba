"""Closed-form limiting NTKs of soft trees and the architectures they are built from (private).

The public names are imported from :mod:`tabular_trees.ntk`: the per-split expectations, the
oblique, axis-aligned (AAA/AAI), oblivious and mixture kernels, and the tree architectures
(:func:`tree_paths`, Proposition 4.1's :func:`to_oblivious`).
"""

from __future__ import annotations

import numbers
from collections import OrderedDict

import numpy as np

from .._validation import as_finite_array, as_float_matrix, as_kernel_matrix, check_int, check_option, check_real
from . import _ntk_kernels as _k
from ._ntk_kernels import Settings

_MODES = ("AAA", "AAI")

#: Largest alpha^2 (max ||x||^2 + beta^2) accepted: the closed forms multiply two such terms
#: (e.g. the determinant in T-dot), so 1e150 keeps every intermediate below 1e300.
_MAX_SCALE = 1e150


# --------------------------------------------------------------------------- settings and splits
def _settings(X, Y, alpha, beta, mode="AAA"):
    """The kernel's :class:`~tabular_trees.ntk._ntk_kernels.Settings` record on validated inputs ``X``, ``Y``.

    Checks ``mode``, ``alpha > 0``, ``beta >= 0`` and that the closed forms do not overflow on
    these inputs (``alpha^2 (max ||x||^2 + beta^2)`` below :data:`_MAX_SCALE`).
    """
    aai = check_option(mode, "mode", _MODES) == "AAI"
    alpha = check_real(alpha, "alpha", min_val=0.0, include_boundaries="neither")
    beta = check_real(beta, "beta", min_val=0.0, include_boundaries="left")
    big = 0.0
    for A in (X, Y):
        if A.size:
            big = max(big, float(np.max(np.abs(A))))
    F = X.shape[1]
    with np.errstate(over="ignore"):
        scale = alpha * alpha * (big * big * F + beta * beta)
    if not np.isfinite(scale) or scale > _MAX_SCALE:
        raise ValueError(
            f"the inputs are too large for the NTK's closed forms: alpha={alpha:.3g}, beta={beta:.3g} and "
            f"max |x| = {big:.3g} give alpha^2 (||x||^2 + beta^2) ~ {scale:.3g}, above the limit {_MAX_SCALE:.0e} "
            "at which float64 intermediate terms overflow. Rescale X (for example standardise it) and use "
            "moderate alpha and beta."
        )
    return Settings(aai, alpha, beta)


def _check_index(value, n_features, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int feature index, got {type(value).__name__} {value!r}.")
    value = int(value)
    if not 0 <= value < n_features:
        raise ValueError(
            f"{what} = {value} is out of range; X has {n_features} features, so indices must be in "
            f"0..{n_features - 1} (negative indices are not accepted)."
        )
    return value


def _norm_split(split, n_features, what):
    """A split (int or iterable of ints) -> sorted tuple of distinct feature indices."""
    if isinstance(split, (numbers.Integral, np.integer)) and not isinstance(split, (bool, np.bool_)):
        return (_check_index(split, n_features, what),)
    if isinstance(split, (str, bytes)) or not hasattr(split, "__iter__"):
        raise TypeError(
            f"{what} must be a feature index (int) or a tuple of feature indices, got {split!r}."
        )
    feats = tuple(_check_index(s, n_features, f"{what} entry") for s in split)
    if len(feats) == 0:
        raise ValueError(f"{what} is an empty tuple; a split must use at least one feature.")
    if len(set(feats)) != len(feats):
        raise ValueError(f"{what} = {split!r} repeats a feature; list each feature of a split once.")
    return tuple(sorted(feats))


def _norm_path(path, n_features, what="path"):
    if isinstance(path, (numbers.Integral, np.integer)) or isinstance(path, (str, bytes)) or not hasattr(
        path, "__iter__"
    ):
        raise TypeError(f"{what} must be a tuple of splits (feature indices), got {path!r}.")
    splits = tuple(_norm_split(s, n_features, f"{what} split") for s in path)
    if len(splits) == 0:
        raise ValueError(f"{what} is empty; a root-to-leaf path must contain at least one split.")
    return splits


def _norm_paths(paths, n_features):
    if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__"):
        raise TypeError(f"paths must be a list of root-to-leaf feature tuples, got {paths!r}.")
    paths = list(paths)
    if len(paths) == 0:
        raise ValueError("paths is empty; give at least one root-to-leaf path.")
    return [_norm_path(p, n_features, f"paths[{i}]") for i, p in enumerate(paths)]


# --------------------------------------------------------------------------- node terms
def _group_terms(X, Y, split, settings):
    """(T, Tdot, <x_S, y_S> + beta^2) for one (normalised) split."""
    alpha, beta = settings.alpha, settings.beta
    n, m = X.shape[0], Y.shape[0]
    T = np.empty((n, m))
    Td = np.empty((n, m))
    if len(split) == 1:
        s = split[0]
        x = np.ascontiguousarray(X[:, s])
        y = np.ascontiguousarray(Y[:, s])
        _k.single_feature_terms(x, y, alpha, beta, T, Td)
        A = np.multiply.outer(x, y) + beta * beta
    else:
        idx = list(split)
        Xs = np.ascontiguousarray(X[:, idx])
        Ys = np.ascontiguousarray(Y[:, idx])
        _k.multi_feature_terms(Xs, Ys, alpha, beta, T, Td)
        A = Xs @ Ys.T + beta * beta
    return T, Td, A


def node_expectations(X, Y=None, *, features=None, alpha=2.0, beta=0.5):
    r"""Per-split expectations :math:`\mathcal T` and :math:`\dot{\mathcal T}` in closed form.

    For a split on the features :math:`S`, with :math:`u\sim N(0, I_{|S|})`, :math:`v\sim N(0,1)`,

    .. math::

       \begin{aligned}
       \mathcal T(\mathbf x, \mathbf x') &= E[\sigma(u^\top \mathbf x_S + \beta v)\,\sigma(u^\top\mathbf x'_S + \beta v)],\\
       \dot{\mathcal T}(\mathbf x, \mathbf x') &= E[\dot\sigma(u^\top \mathbf x_S + \beta v)\,\dot\sigma(u^\top\mathbf x'_S + \beta v)],
       \end{aligned}

    evaluated with Eqs. (A.2)-(A.3) of Kanoh & Sugiyama (2024), using
    :math:`A = \mathbf x_S^\top\mathbf x'_S + \beta^2`.

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
        Defaults to ``X``.
    features : int, tuple of int or None, default=None
        The split's feature(s); ``None`` uses all features (an oblique split).
    alpha : float, default=2.0
        Scale of the decision function, > 0.
    beta : float, default=0.5
        Scale of the threshold parameter, >= 0.

    Returns
    -------
    T, Tdot : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> T, Td = node_expectations(np.zeros((1, 2)), features=0, alpha=1.0, beta=0.0)
    >>> float(T[0, 0]), round(float(Td[0, 0]), 6)   # sigma(0) = 1/2, sigma'(0) = alpha/sqrt(pi)
    (0.25, 0.31831)
    """
    X = as_float_matrix(X, "X")
    Y = X if Y is None else as_kernel_matrix(Y, X.shape[1], "Y")
    settings = _settings(X, Y, alpha, beta)
    F = X.shape[1]
    split = tuple(range(F)) if features is None else _norm_split(features, F, "features")
    T, Td, _ = _group_terms(X, Y, split, settings)
    return T, Td


# --------------------------------------------------------------------------- kernels
def _path_kernel(groups, path, sigma_all):
    """Rule-set kernel R_a for a normalised path, given the dict of group terms."""
    D = len(path)
    Ts = [groups[s][0] for s in path]
    Gs = []
    for s in path:
        T, Td, A = groups[s]
        Gs.append((A if sigma_all is None else sigma_all) * Td)
    # prefix / suffix products of T so that every "all but one" product costs O(D)
    prefix = [None] * (D + 1)
    suffix = [None] * (D + 1)
    prefix[0] = np.ones_like(Ts[0])
    suffix[D] = np.ones_like(Ts[0])
    for d in range(D):
        prefix[d + 1] = prefix[d] * Ts[d]
    for d in range(D - 1, -1, -1):
        suffix[d] = suffix[d + 1] * Ts[d]
    out = prefix[D].copy()
    for d in range(D):
        out += Gs[d] * prefix[d] * suffix[d + 1]
    return out


def _paths_kernel(X, Y, norm_paths, counts, settings):
    """``sum_a counts[a] * R_a`` over the normalised paths, each split's terms computed once."""
    groups = {}
    for p in norm_paths:
        for s in p:
            if s not in groups:
                groups[s] = _group_terms(X, Y, s, settings)
    sigma_all = X @ Y.T + settings.beta * settings.beta if settings.aai else None
    out = np.zeros((X.shape[0], Y.shape[0]))
    for p, c in zip(norm_paths, counts):
        out += c * _path_kernel(groups, p, sigma_all)
    return out


def _aggregate(norm_paths, weights=None):
    """Merge paths with the same multiset of splits (the kernel ignores the order along a path)."""
    agg = OrderedDict()
    if weights is None:
        weights = [1.0] * len(norm_paths)
    for p, w in zip(norm_paths, weights):
        key = tuple(sorted(p))
        agg[key] = agg.get(key, 0.0) + w
    return list(agg.keys()), list(agg.values())


def axis_aligned_ntk(X, Y=None, *, paths, mode="AAA", alpha=2.0, beta=0.5):
    r"""Limiting NTK of axis-aligned soft trees of any architecture (Theorem 3.1, Eq. A.13).

    .. math::

       \Theta(\mathbf x, \mathbf x') = \sum_{\ell}\Big(\sum_{n\in a_\ell} \Sigma_n\dot{\mathcal T}_n
       \prod_{t\in a_\ell\setminus n}\mathcal T_t + \prod_{t\in a_\ell}\mathcal T_t\Big)

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
        Defaults to ``X``.
    paths : list of tuples
        One tuple per leaf: the splits from the root to that leaf. A split is a feature index
        or a tuple of feature indices (a split on several features, remark after Eq. A.13).
        Use :func:`tree_paths` to obtain them from a nested tree description.
    mode : {"AAA", "AAI"}, default="AAA"
        ``"AAA"``: always axis-aligned, :math:`\Sigma_n = \mathbf x_{S_n}^\top\mathbf x'_{S_n}+\beta^2`;
        ``"AAI"``: axis-aligned at initialisation only, :math:`\Sigma_n = \mathbf x^\top\mathbf x'+\beta^2`.
    alpha : float, default=2.0
        Scale of the decision function :math:`\sigma(c) = \tfrac12\operatorname{erf}(\alpha c) + \tfrac12`, > 0.
    beta : float, default=0.5
        Scale of the threshold parameters, >= 0.

    Returns
    -------
    K : ndarray of shape (n, m)
        The tree's limiting NTK between the rows of ``X`` and of ``Y``: a sum over its leaves.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> # root splits on feature 0; its left child is a leaf, its right child splits on feature 1
    >>> K = axis_aligned_ntk(X, paths=[(0,), (0, 1), (0, 1)])
    >>> K.shape, bool(np.allclose(K, K.T))
    ((3, 3), True)
    """
    X = as_float_matrix(X, "X")
    Y = X if Y is None else as_kernel_matrix(Y, X.shape[1], "Y")
    settings = _settings(X, Y, alpha, beta, mode)
    norm = _norm_paths(paths, X.shape[1])
    keys, counts = _aggregate(norm)
    return _paths_kernel(X, Y, keys, counts, settings)


def oblivious_ntk(X, Y=None, *, features, mode="AAA", alpha=2.0, beta=0.5):
    r"""Limiting NTK of an oblivious axis-aligned tree (one split feature per depth).

    .. math::

       \Theta = 2^D\Big(\sum_{d=1}^D \Sigma_{s_d}\dot{\mathcal T}_{s_d}\prod_{t\neq d}\mathcal T_{s_t}
       + \prod_{d=1}^D \mathcal T_{s_d}\Big)

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
    features : tuple
        The split used at depths 1..D (int feature index or tuple of indices each). A feature
        may repeat (e.g. ``(0, 0)``: feature 0 at both depths).
    mode, alpha, beta : str, float, float
        As for :func:`axis_aligned_ntk` (defaults ``"AAA"``, 2.0 and 0.5).

    Returns
    -------
    K : ndarray of shape (n, m)
        The oblivious tree's limiting NTK; equal to :func:`axis_aligned_ntk` with ``2**D`` copies
        of the path ``features``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(4, 3))
    >>> K = oblivious_ntk(X, features=(0, 2))
    >>> bool(np.allclose(K, axis_aligned_ntk(X, paths=[(0, 2)] * 4)))
    True
    """
    X = as_float_matrix(X, "X")
    Y = X if Y is None else as_kernel_matrix(Y, X.shape[1], "Y")
    settings = _settings(X, Y, alpha, beta, mode)
    path = _norm_path(features, X.shape[1], "features")
    return _paths_kernel(X, Y, [path], [float(2 ** len(path))], settings)


def oblique_ntk(X, Y=None, *, depth, alpha=2.0, beta=0.5):
    r"""Limiting NTK of oblique (unconstrained) perfect soft trees of depth ``depth`` (Theorem 2.1).

    .. math::

       \Theta = 2^D\big(D\,\Sigma\,\dot{\mathcal T}\,\mathcal T^{D-1} + \mathcal T^D\big),\qquad
       \Sigma = \mathbf x^\top\mathbf x' + \beta^2,

    with :math:`\mathcal T,\dot{\mathcal T}` for a split on all features. The kernel is invariant
    under rotations of the inputs.

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
    depth : int
        Depth of the perfect trees, 1 to 30.
    alpha, beta : float, default=2.0 and 0.5
        As for :func:`axis_aligned_ntk`.

    Returns
    -------
    K : ndarray of shape (n, m)
        The limiting NTK of the oblique trees between the rows of ``X`` and of ``Y``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> Q = np.array([[0.0, -1.0], [1.0, 0.0]])          # a rotation
    >>> bool(np.allclose(oblique_ntk(X, depth=3), oblique_ntk(X @ Q.T, depth=3)))
    True
    """
    X = as_float_matrix(X, "X")
    Y = X if Y is None else as_kernel_matrix(Y, X.shape[1], "Y")
    depth = check_int(depth, "depth", min_val=1, max_val=30)
    settings = _settings(X, Y, alpha, beta)
    T, Td, A = _group_terms(X, Y, tuple(range(X.shape[1])), settings)
    D = depth
    return (2.0**D) * (D * A * Td * T ** (D - 1) + T**D)


def _check_weights(weights, n):
    """``weights`` as a finite, non-negative 1-D float array with one entry per architecture/kernel."""
    w = as_finite_array(weights, "weights", ndim=1)
    if w.shape[0] != n:
        raise ValueError(f"weights must have one entry per architecture/kernel ({n}), got {w.shape[0]}.")
    if np.any(w < 0):
        raise ValueError("weights must be non-negative (they are proportions of trees).")
    return w


def mixture_ntk(X, Y=None, *, architectures, weights=None, mode="AAA", alpha=2.0, beta=0.5):
    r"""Limiting NTK of an ensemble mixing several tree architectures (Proposition 3.1).

    If a fraction :math:`w_k` of the :math:`M` trees has architecture :math:`k` and the ensemble
    output is :math:`M^{-1/2}\sum_m f_m`, the NTK is the sum of the parts' NTKs, so the limit is
    :math:`\sum_k w_k\,\Theta_k`.

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
        Defaults to ``X``.
    architectures : list
        Each entry is a list of root-to-leaf paths (as for :func:`axis_aligned_ntk`).
    weights : array-like of shape (len(architectures),), optional
        Non-negative proportions; default ``1 / len(architectures)`` each. They are used as given
        (not renormalised).
    mode, alpha, beta : str, float, float
        As for :func:`axis_aligned_ntk` (defaults ``"AAA"``, 2.0 and 0.5).

    Returns
    -------
    K : ndarray of shape (n, m)
        :math:`\sum_k w_k\,\Theta_k`, the ensemble's limiting NTK.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(1).normal(size=(4, 2))
    >>> K = mixture_ntk(X, architectures=[[(0,), (0,)], [(1,), (1,)]], weights=[0.5, 0.5])
    >>> bool(np.allclose(K, 0.5 * oblivious_ntk(X, features=(0,)) + 0.5 * oblivious_ntk(X, features=(1,))))
    True
    """
    X = as_float_matrix(X, "X")
    Y = X if Y is None else as_kernel_matrix(Y, X.shape[1], "Y")
    settings = _settings(X, Y, alpha, beta, mode)
    if isinstance(architectures, (str, bytes)) or not hasattr(architectures, "__iter__"):
        raise TypeError("architectures must be a list of path lists.")
    architectures = list(architectures)
    if not architectures:
        raise ValueError("architectures is empty; give at least one architecture.")
    if weights is None:
        w = np.full(len(architectures), 1.0 / len(architectures))
    else:
        w = _check_weights(weights, len(architectures))
    all_paths, all_w = [], []
    for k, arch in enumerate(architectures):
        norm = _norm_paths(arch, X.shape[1])
        all_paths.extend(norm)
        all_w.extend([w[k]] * len(norm))
    keys, counts = _aggregate(all_paths, all_w)
    return _paths_kernel(X, Y, keys, counts, settings)


# --------------------------------------------------------------------------- architectures
def tree_paths(tree):
    """Root-to-leaf split paths of a tree given as nested tuples.

    A tree is ``None`` (a leaf) or ``(split, left, right)``, where ``split`` is a feature index
    or a tuple of feature indices. Leaves are listed left to right.

    Parameters
    ----------
    tree : tuple
        The root must be a split (a lone leaf has no path).

    Returns
    -------
    paths : list of tuple

    Examples
    --------
    >>> tree_paths((0, None, (1, None, None)))      # Fig. 5's asymmetric tree
    [(0,), (0, 1), (0, 1)]
    """
    if tree is None:
        raise ValueError("tree is a single leaf; the root must be a split (split, left, right).")
    out = []
    # depth-first, left before right: a stack of (node, splits from the root to it)
    stack = [(tree, ())]
    while stack:
        node, prefix = stack.pop()
        if len(prefix) > 30:
            raise ValueError("tree is deeper than 30 levels (or cyclic); this is not supported.")
        if node is None:
            out.append(prefix)
        elif isinstance(node, tuple) and len(node) == 3:
            split, left, right = node
            stack.extend([(right, prefix + (split,)), (left, prefix + (split,))])
        else:
            raise TypeError(f"tree nodes must be None (leaf) or a 3-tuple (split, left, right), got {node!r}.")
    return out


def to_oblivious(paths):
    r"""Proposition 4.1: an axis-aligned tree as a weighted set of oblivious trees.

    The limiting kernel of a tree is the sum over its leaves of the rule-set kernels
    :math:`R_{a_\ell}`, and an oblivious tree with features :math:`a` has kernel
    :math:`2^{|a|} R_a`. Hence

    .. math:: \Theta_{\text{tree}} = \sum_\ell 2^{-D_\ell}\,\Theta^{\text{obl}}_{a_\ell}

    exactly, for AAA and AAI alike. Paths with the same multiset of splits are merged. For the
    leaves of a full binary tree the weights sum to 1 (Kraft's equality), so they are the
    *proportions* of oblivious trees in an ensemble with the same limiting NTK; for an arbitrary
    list of paths the kernels agree up to the constant ``sum(weights)`` once the weights are
    normalised to proportions.

    Parameters
    ----------
    paths : list of tuples
        Root-to-leaf paths (see :func:`axis_aligned_ntk`); feature indices are not range-checked
        here (no data is given) but must be non-negative ints.

    Returns
    -------
    list of (float, tuple)
        ``(weight, features)`` pairs; ``features`` is the oblivious tree's split per depth.

    Examples
    --------
    >>> to_oblivious([(0,), (0, 1), (0, 1)])
    [(0.5, (0,)), (0.5, (0, 1))]
    """
    norm = _norm_paths(paths, np.iinfo(np.int64).max)
    weights = [2.0 ** (-len(p)) for p in norm]
    keys, w = _aggregate(norm, weights)
    out = []
    for key, wk in zip(keys, w):
        feats = tuple(s[0] if len(s) == 1 else s for s in key)
        out.append((float(wk), feats))
    return out

