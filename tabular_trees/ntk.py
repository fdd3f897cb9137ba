r"""Limiting neural tangent kernels of soft tree ensembles (Kanoh & Sugiyama, 2024).

A soft tree routes a sample to the left child of node :math:`n` with probability
:math:`\sigma(\mathbf w_n^\top\mathbf x + \beta b_n)`, where the decision function is the
scaled error function :math:`\sigma(c) = \tfrac12\operatorname{erf}(\alpha c) + \tfrac12`.
With all parameters drawn i.i.d. :math:`N(0, 1)` and the ensemble output scaled by
:math:`1/\sqrt M`, the NTK of :math:`M` trees converges, as :math:`M\to\infty`, to a
deterministic kernel that this module computes in closed form:

* :func:`node_expectations` — the per-split expectations :math:`\mathcal T` and
  :math:`\dot{\mathcal T}` (Theorem 3.1, Eqs. A.2-A.3; Theorem 2.1 for oblique splits);
* :func:`oblique_ntk` — unconstrained (oblique) perfect trees (Theorem 2.1);
* :func:`axis_aligned_ntk` — axis-aligned trees of *any* architecture given as root-to-leaf
  feature paths, AAA ("always axis-aligned") or AAI ("axis-aligned at initialisation"),
  Eq. (7)/(A.13), including splits on several features (the remark after A.13);
* :func:`oblivious_ntk` — the oblivious-tree shorthand;
* :func:`mixture_ntk` — ensembles mixing several architectures (Proposition 3.1);
* :func:`to_oblivious` — Proposition 4.1, any axis-aligned tree as a weighted set of oblivious trees;
* :func:`kernel_bank`, :func:`iter_kernel_bank`, :func:`weighted_kernel_sum` — many oblivious
  kernels at once from shared per-feature terms (numba, parallel over rows);
* :func:`ntk_trajectory` — the analytic gradient-descent trajectory of the linearised model.

Kernel conventions. A *path* is a tuple of splits from the root to one leaf; a split is a
feature index (``int``) or a tuple of feature indices (a split on several features). For a
path :math:`a` the rule-set kernel is

.. math::

   R_a = \sum_{n\in a} \Sigma_n \dot{\mathcal T}_n \prod_{t\in a,\, t\neq n} \mathcal T_t
         + \prod_{t\in a} \mathcal T_t ,

where the products run over the *nodes* of the path (a feature used at two depths of one
path counts twice: the two nodes have independent parameters), and the tree kernel is the
sum of :math:`R_a` over its leaves. :math:`\Sigma_n = \mathbf x_{S_n}^\top \mathbf x'_{S_n} + \beta^2`
for AAA and :math:`\mathbf x^\top\mathbf x' + \beta^2` for AAI. An oblivious tree of depth
:math:`D` has :math:`2^D` leaves with the same path, hence the factor :math:`2^D`.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections import OrderedDict

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import _ntk_kernels as _k
from ._validation import as_float_matrix, check_int, check_option, check_real

__all__ = [
    "node_expectations",
    "oblique_ntk",
    "oblivious_ntk",
    "axis_aligned_ntk",
    "mixture_ntk",
    "tree_paths",
    "to_oblivious",
    "all_feature_sets",
    "kernel_bank",
    "iter_kernel_bank",
    "weighted_kernel_sum",
    "ntk_trajectory",
]

_MODES = ("AAA", "AAI")


# --------------------------------------------------------------------------- validation
def _check_xy(X, Y):
    X = as_float_matrix(X, "X")
    if Y is None:
        return X, X
    Y = as_float_matrix(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"Y has {Y.shape[1]} features but X has {X.shape[1]}; both must describe the same features."
        )
    return X, Y


#: Largest alpha^2 (max ||x||^2 + beta^2) accepted: the closed forms multiply two such terms
#: (e.g. the determinant in T-dot), so 1e150 keeps every intermediate below 1e300.
_MAX_SCALE = 1e150


def _check_hyper(alpha, beta, X=None, Y=None):
    alpha = check_real(alpha, "alpha", min_val=0.0, include_boundaries="neither")
    beta = check_real(beta, "beta", min_val=0.0, include_boundaries="left")
    big = 0.0
    for A in (X, Y):
        if A is not None and A.size:
            big = max(big, float(np.max(np.abs(A))))
    F = X.shape[1] if X is not None else 1
    with np.errstate(over="ignore"):
        scale = alpha * alpha * (big * big * F + beta * beta)
    if not np.isfinite(scale) or scale > _MAX_SCALE:
        raise ValueError(
            f"the inputs are too large for the NTK's closed forms: alpha={alpha:.3g}, beta={beta:.3g} and "
            f"max |x| = {big:.3g} give alpha^2 (||x||^2 + beta^2) ~ {scale:.3g}, above the limit {_MAX_SCALE:.0e} "
            "at which float64 intermediate terms overflow. Rescale X (for example standardise it) and use "
            "moderate alpha and beta."
        )
    return alpha, beta


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
def _group_terms(X, Y, split, alpha, beta):
    """(T, Tdot, <x_S, y_S> + beta^2) for one (normalised) split."""
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

       \mathcal T(\mathbf x, \mathbf x') = E[\sigma(u^\top \mathbf x_S + \beta v)\,\sigma(u^\top\mathbf x'_S + \beta v)],\quad
       \dot{\mathcal T}(\mathbf x, \mathbf x') = E[\dot\sigma(u^\top \mathbf x_S + \beta v)\,\dot\sigma(u^\top\mathbf x'_S + \beta v)],

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
    X, Y = _check_xy(X, Y)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    F = X.shape[1]
    split = tuple(range(F)) if features is None else _norm_split(features, F, "features")
    T, Td, _ = _group_terms(X, Y, split, alpha, beta)
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


def _paths_kernel(X, Y, norm_paths, counts, mode, alpha, beta):
    groups = {}
    for p in norm_paths:
        for s in p:
            if s not in groups:
                groups[s] = _group_terms(X, Y, s, alpha, beta)
    sigma_all = X @ Y.T + beta * beta if mode == "AAI" else None
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
    beta : float, default=0.5

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> # root splits on feature 0; its left child is a leaf, its right child splits on feature 1
    >>> K = axis_aligned_ntk(X, paths=[(0,), (0, 1), (0, 1)])
    >>> K.shape, bool(np.allclose(K, K.T))
    ((3, 3), True)
    """
    X, Y = _check_xy(X, Y)
    mode = check_option(mode, "mode", _MODES)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    norm = _norm_paths(paths, X.shape[1])
    keys, counts = _aggregate(norm)
    return _paths_kernel(X, Y, keys, counts, mode, alpha, beta)


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
    mode : {"AAA", "AAI"}, default="AAA"
    alpha, beta : float

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(4, 3))
    >>> K = oblivious_ntk(X, features=(0, 2))
    >>> bool(np.allclose(K, axis_aligned_ntk(X, paths=[(0, 2)] * 4)))
    True
    """
    X, Y = _check_xy(X, Y)
    mode = check_option(mode, "mode", _MODES)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    path = _norm_path(features, X.shape[1], "features")
    return _paths_kernel(X, Y, [path], [float(2 ** len(path))], mode, alpha, beta)


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
    depth : int >= 1
    alpha, beta : float

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> Q = np.array([[0.0, -1.0], [1.0, 0.0]])          # a rotation
    >>> bool(np.allclose(oblique_ntk(X, depth=3), oblique_ntk(X @ Q.T, depth=3)))
    True
    """
    X, Y = _check_xy(X, Y)
    depth = check_int(depth, "depth", min_val=1, max_val=30)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    T, Td, A = _group_terms(X, Y, tuple(range(X.shape[1])), alpha, beta)
    D = depth
    return (2.0**D) * (D * A * Td * T ** (D - 1) + T**D)


def _as_float(value, name, what):
    """``np.asarray(value, float64)`` with an error that names the argument (not NumPy's words)."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be {what}, got {type(value).__name__} {np.asarray(value, dtype=object).ravel()[:3]!r}"
            "; pass numbers (for example a list of floats or a float NumPy array)."
        ) from None


def _check_weights(weights, n, name="weights"):
    if weights is None:
        return None
    w = _as_float(weights, name, "numeric (one non-negative weight per architecture/kernel)")
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one entry per architecture/kernel ({n}), got shape {w.shape}.")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} contains NaN or infinity.")
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative (they are proportions of trees).")
    return w


def mixture_ntk(X, Y=None, *, architectures, weights=None, mode="AAA", alpha=2.0, beta=0.5):
    r"""Limiting NTK of an ensemble mixing several tree architectures (Proposition 3.1).

    If a fraction :math:`w_k` of the :math:`M` trees has architecture :math:`k` and the ensemble
    output is :math:`M^{-1/2}\sum_m f_m`, the NTK is the sum of the parts' NTKs, so the limit is
    :math:`\sum_k w_k\,\Theta_k`.

    Parameters
    ----------
    X, Y : array-like
    architectures : list
        Each entry is a list of root-to-leaf paths (as for :func:`axis_aligned_ntk`).
    weights : array-like of shape (len(architectures),), optional
        Non-negative proportions; default ``1 / len(architectures)`` each. They are used as given
        (not renormalised).
    mode : {"AAA", "AAI"}
    alpha, beta : float

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(1).normal(size=(4, 2))
    >>> K = mixture_ntk(X, architectures=[[(0,), (0,)], [(1,), (1,)]], weights=[0.5, 0.5])
    >>> bool(np.allclose(K, 0.5 * oblivious_ntk(X, features=(0,)) + 0.5 * oblivious_ntk(X, features=(1,))))
    True
    """
    X, Y = _check_xy(X, Y)
    mode = check_option(mode, "mode", _MODES)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    if isinstance(architectures, (str, bytes)) or not hasattr(architectures, "__iter__"):
        raise TypeError("architectures must be a list of path lists.")
    architectures = list(architectures)
    if not architectures:
        raise ValueError("architectures is empty; give at least one architecture.")
    w = _check_weights(weights, len(architectures))
    if w is None:
        w = np.full(len(architectures), 1.0 / len(architectures))
    all_paths, all_w = [], []
    for k, arch in enumerate(architectures):
        norm = _norm_paths(arch, X.shape[1])
        all_paths.extend(norm)
        all_w.extend([w[k]] * len(norm))
    keys, counts = _aggregate(all_paths, all_w)
    return _paths_kernel(X, Y, keys, counts, mode, alpha, beta)


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

    def walk(node, prefix, depth):
        if depth > 30:
            raise ValueError("tree is deeper than 30 levels (or cyclic); this is not supported.")
        if node is None:
            out.append(tuple(prefix))
            return
        if not isinstance(node, tuple) or len(node) != 3:
            raise TypeError(f"tree nodes must be None (leaf) or a 3-tuple (split, left, right), got {node!r}.")
        split, left, right = node
        walk(left, prefix + [split], depth + 1)
        walk(right, prefix + [split], depth + 1)

    walk(tree, [], 0)
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


#: Most feature sets :func:`all_feature_sets` lists (each is one (n, m) kernel of a bank).
_MAX_FEATURE_SETS = 1_000_000


def all_feature_sets(n_features, max_size=3, min_size=1):
    """All sets of distinct features with ``min_size..max_size`` elements, in lexicographic order.

    Examples
    --------
    >>> len(all_feature_sets(9, 3))        # 9 + 36 + 84
    129
    """
    n_features = check_int(n_features, "n_features", min_val=1)
    max_size = check_int(max_size, "max_size", min_val=1)
    min_size = check_int(min_size, "min_size", min_val=1, max_val=max_size)
    count = sum(math.comb(n_features, r) for r in range(min_size, min(max_size, n_features) + 1))
    if count > _MAX_FEATURE_SETS:
        raise ValueError(
            f"all_feature_sets(n_features={n_features}, max_size={max_size}, min_size={min_size}) would list "
            f"{count:.3g} sets, above the limit {_MAX_FEATURE_SETS:,}; a kernel bank that large cannot be computed. "
            "Use fewer features or a smaller max_size."
        )
    out = []
    for r in range(min_size, min(max_size, n_features) + 1):
        out.extend(itertools.combinations(range(n_features), r))
    return out


# --------------------------------------------------------------------------- kernel bank
def _pack_sets(feature_sets, n_features):
    if isinstance(feature_sets, (str, bytes)) or not hasattr(feature_sets, "__iter__"):
        raise TypeError("feature_sets must be a list of tuples of feature indices.")
    sets = list(feature_sets)
    if not sets:
        raise ValueError("feature_sets is empty; give at least one tuple of feature indices.")
    norm = []
    for k, fs in enumerate(sets):
        if isinstance(fs, (numbers.Integral, np.integer)) and not isinstance(fs, (bool, np.bool_)):
            fs = (fs,)
        if isinstance(fs, (str, bytes)) or not hasattr(fs, "__iter__"):
            raise TypeError(f"feature_sets[{k}] must be a tuple of feature indices, got {fs!r}.")
        fs = tuple(fs)
        if len(fs) == 0:
            raise ValueError(f"feature_sets[{k}] is empty; every tree needs at least one split.")
        if len(fs) > 30:
            raise ValueError(f"feature_sets[{k}] has depth {len(fs)}; at most 30 is supported.")
        norm.append(tuple(_check_index(s, n_features, f"feature_sets[{k}] entry") for s in fs))
    dmax = max(len(fs) for fs in norm)
    packed = np.zeros((len(norm), dmax), dtype=np.int64)
    lens = np.zeros(len(norm), dtype=np.int64)
    for k, fs in enumerate(norm):
        packed[k, : len(fs)] = fs
        lens[k] = len(fs)
    return packed, lens


def _value_tables(X, Y, aai, alpha, beta):
    """Per-feature tables of T and Sigma*Tdot (AAA) / Tdot (AAI) on distinct values.

    T_s(x, y) depends only on the pair (x_s, y_s), so for a feature with few distinct values
    (categorical, ordinal, one-hot, tic-tac-toe's three states) the terms are evaluated on the
    ``u_x * u_y`` distinct pairs and gathered. Features with many distinct values are flagged
    off and computed directly. The results are identical to direct evaluation.
    """
    n, F = X.shape
    m = Y.shape[0]
    use = np.zeros(F, dtype=np.bool_)
    cx = np.zeros((n, F), dtype=np.int64)
    cy = np.zeros((m, F), dtype=np.int64)
    off = np.zeros(F, dtype=np.int64)
    ny = np.ones(F, dtype=np.int64)
    tabs_T, tabs_G = [], []
    pos = 0
    for s in range(F):
        ux, ix = np.unique(X[:, s], return_inverse=True)
        uy, iy = (ux, ix) if Y is X else np.unique(Y[:, s], return_inverse=True)
        if ux.size * uy.size * 8 > n * m:
            continue
        T = np.empty((ux.size, uy.size))
        Td = np.empty((ux.size, uy.size))
        _k.single_feature_terms(ux, np.ascontiguousarray(uy), alpha, beta, T, Td)
        G = Td if aai else (np.multiply.outer(ux, uy) + beta * beta) * Td
        use[s] = True
        cx[:, s] = ix.ravel()
        cy[:, s] = iy.ravel()
        off[s] = pos
        ny[s] = uy.size
        tabs_T.append(T.ravel())
        tabs_G.append(G.ravel())
        pos += T.size
    tab_T = np.concatenate(tabs_T) if tabs_T else np.zeros(1)
    tab_G = np.concatenate(tabs_G) if tabs_G else np.zeros(1)
    return use, cx, cy, off, ny, tab_T, tab_G


def _bank_setup(X, Y, feature_sets, mode, alpha, beta):
    X0 = X
    X, Y = _check_xy(X, Y)
    mode = check_option(mode, "mode", _MODES)
    alpha, beta = _check_hyper(alpha, beta, X, Y)
    sets, lens = _pack_sets(feature_sets, X.shape[1])
    if Y is None or Y is X0:
        Y = X
    aai = mode == "AAI"
    tables = _value_tables(X, Y, aai, alpha, beta)
    return X, Y, sets, lens, aai, alpha, beta, tables


def kernel_bank(X, Y=None, *, feature_sets, mode="AAA", alpha=2.0, beta=0.5, out=None, dtype=np.float64):
    """Oblivious-tree NTKs for many feature sets at once, sharing the per-feature terms.

    Slice ``k`` equals ``oblivious_ntk(X, Y, features=feature_sets[k], mode=mode, ...)``. The
    per-feature expectations are evaluated once per (row, column, feature) inside a compiled
    loop parallel over rows; all kernels of a row are then formed from them.

    Memory: the result has ``len(feature_sets) * n * m`` entries (129 x 958 x 958 float64 is
    0.95 GB). Use ``dtype=np.float32`` to halve it, ``out=`` to reuse a buffer, or
    :func:`iter_kernel_bank` / :func:`weighted_kernel_sum` to avoid holding all kernels.

    Parameters
    ----------
    X : array-like of shape (n, F)
    Y : array-like of shape (m, F), optional
        Defaults to ``X``.
    feature_sets : list of tuple of int
        One oblivious tree per entry; entry ``d`` is the feature split on at depth ``d + 1``
        (single-feature splits only; repeats allowed).
    mode : {"AAA", "AAI"}, default="AAA"
    alpha, beta : float
    out : ndarray of shape (len(feature_sets), n, m), optional
        C-contiguous float64 or float32 array to write into.
    dtype : {np.float64, np.float32}, default=np.float64
        Result dtype when ``out`` is not given (terms are always computed in float64).

    Returns
    -------
    B : ndarray of shape (len(feature_sets), n, m)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(6, 4))
    >>> B = kernel_bank(X, feature_sets=all_feature_sets(4, 2))
    >>> B.shape
    (10, 6, 6)
    >>> bool(np.allclose(B[5], oblivious_ntk(X, features=(0, 2))))
    True
    """
    X, Y, sets, lens, aai, alpha, beta, tables = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    shape = (sets.shape[0], X.shape[0], Y.shape[0])
    if out is None:
        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
            raise ValueError(f"dtype must be float64 or float32, got {dt}.")
        out = np.empty(shape, dtype=dt)
    else:
        if not isinstance(out, np.ndarray) or out.shape != shape:
            raise ValueError(f"out must be an ndarray of shape {shape}, got {getattr(out, 'shape', type(out))}.")
        if out.dtype not in (np.dtype(np.float64), np.dtype(np.float32)) or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous float64 or float32 array.")
        if not out.flags.writeable:
            raise ValueError("out must be writeable.")
    _k.oblivious_bank(X, Y, sets, lens, 0, sets.shape[0], aai, alpha, beta, *tables, out)
    return out


def iter_kernel_bank(X, Y=None, *, feature_sets, mode="AAA", alpha=2.0, beta=0.5, chunk_size=16, dtype=np.float64):
    """Stream the kernel bank in chunks of ``chunk_size`` kernels.

    Yields ``(start, block)`` with ``block`` of shape ``(k, n, m)`` holding kernels
    ``start .. start + k - 1``. Only one block is alive at a time if the caller does not keep
    references. The per-feature terms are recomputed per chunk (a small cost next to the
    kernel products when ``chunk_size`` is not tiny).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> sets = all_feature_sets(3, 3)
    >>> [b.shape[0] for _, b in iter_kernel_bank(X, feature_sets=sets, chunk_size=3)]
    [3, 3, 1]
    """
    # every argument is validated here, when iter_kernel_bank is called, not at the first next()
    X, Y, sets, lens, aai, alpha, beta, tables = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    chunk_size = check_int(chunk_size, "chunk_size", min_val=1)
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {dt}.")
    return _kernel_chunks(X, Y, sets, lens, aai, alpha, beta, tables, chunk_size, dt)


def _kernel_chunks(X, Y, sets, lens, aai, alpha, beta, tables, chunk_size, dt):
    """The generator behind :func:`iter_kernel_bank` (arguments already validated)."""
    K = sets.shape[0]
    for start in range(0, K, chunk_size):
        stop = min(K, start + chunk_size)
        block = np.empty((stop - start, X.shape[0], Y.shape[0]), dtype=dt)
        _k.oblivious_bank(X, Y, sets, lens, start, stop, aai, alpha, beta, *tables, block)
        yield start, block


def weighted_kernel_sum(X, Y=None, *, feature_sets, weights, mode="AAA", alpha=2.0, beta=0.5):
    """``sum_k weights[k] * kernel_bank(...)[k]`` computed without storing the bank.

    This is the NTK of an ensemble whose proportion ``weights[k]`` of trees is the oblivious
    tree ``feature_sets[k]`` (Proposition 3.1), e.g. the MKL-weighted kernel.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> sets = [(0,), (1, 2)]
    >>> K = weighted_kernel_sum(X, feature_sets=sets, weights=[0.25, 0.75])
    >>> bool(np.allclose(K, np.tensordot([0.25, 0.75], kernel_bank(X, feature_sets=sets), 1)))
    True
    """
    X, Y, sets, lens, aai, alpha, beta, tables = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    w = _check_weights(weights, sets.shape[0])
    if w is None:
        raise TypeError("weights is required (one non-negative weight per feature set).")
    out = np.empty((X.shape[0], Y.shape[0]))
    _k.oblivious_weighted_sum(X, Y, sets, lens, np.ascontiguousarray(w), aai, alpha, beta, *tables, out)
    return out


# --------------------------------------------------------------------------- dynamics
def ntk_trajectory(H_train, H_eval, y, *, learning_rate, steps, reduction="sum", discrete=False):
    r"""Outputs of the linearised model trained by gradient descent on the squared error.

    Starting from zero output (the initial output is subtracted), gradient flow on
    :math:`L=\tfrac12\sum_i (f(\mathbf x_i)-y_i)^2` gives (Lee et al., 2019; Kanoh & Sugiyama, 2024)

    .. math:: f(\nu, t) = H(\nu,\mathbf x)H(\mathbf x,\mathbf x)^{-1}\big(I-e^{-\eta H(\mathbf x,\mathbf x)t}\big)\mathbf y .

    With ``reduction="mean"`` (:math:`L=\tfrac1{2N}\sum_i(\cdot)^2`, the paper's Eq. 4) the rate
    is :math:`\eta/N`. With ``discrete=True`` the exponential is replaced by
    :math:`(I-\eta H)^t`, the exact linearised *discrete* gradient-descent iterate; it diverges when
    :math:`\eta\lambda_{\max}(H) > 2`, and a ``ConvergenceWarning`` says so.
    Computed with an eigendecomposition of ``H_train``, as :math:`V\,\mathrm{diag}((1-e^{-\eta\lambda t})/\lambda)V^\top`
    (stable for small eigenvalues).

    Parameters
    ----------
    H_train : array-like of shape (N, N)
        Symmetric positive semi-definite kernel on the training inputs.
    H_eval : array-like of shape (m, N)
        Kernel between evaluation and training inputs.
    y : array-like of shape (N,)
    learning_rate : float > 0
    steps : array-like of float
        Times (numbers of steps) at which to evaluate.
    reduction : {"sum", "mean"}, default="sum"
    discrete : bool, default=False

    Returns
    -------
    F : ndarray of shape (len(steps), m)

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> F = ntk_trajectory(H, H, np.array([1.0, -1.0]), learning_rate=0.1, steps=[0, 10_000])
    >>> np.round(F, 6).tolist()       # starts at 0, converges to the targets on training points
    [[0.0, 0.0], [1.0, -1.0]]
    """
    H = as_float_matrix(H_train, "H_train")
    N = H.shape[0]
    if H.shape[1] != N:
        raise ValueError(f"H_train must be square, got shape {H.shape}.")
    if not np.allclose(H, H.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(H).max())):
        raise ValueError("H_train must be symmetric (a kernel matrix on the training inputs).")
    He = as_float_matrix(H_eval, "H_eval")
    if He.shape[1] != N:
        raise ValueError(f"H_eval must have {N} columns (one per training input), got {He.shape[1]}.")
    if y is None:
        raise TypeError(f"y must be a numeric vector of length {N} (the training targets), got None.")
    yv = _as_float(y, "y", f"a numeric vector of length {N} (the training targets)").ravel()
    if yv.shape[0] != N or not np.all(np.isfinite(yv)):
        raise ValueError(f"y must be a finite vector of length {N}.")
    lr = check_real(learning_rate, "learning_rate", min_val=0.0, include_boundaries="neither")
    reduction = check_option(reduction, "reduction", ("sum", "mean"))
    t = _as_float(steps, "steps", "numeric (times, in steps, at which to evaluate)").ravel()
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("steps must be finite and non-negative.")
    eta = lr / N if reduction == "mean" else lr
    lam, V = np.linalg.eigh(0.5 * (H + H.T))
    scale = np.abs(lam).max() if lam.size else 1.0
    if lam.min() < -1e-8 * max(scale, 1.0):
        raise ValueError("H_train is not positive semi-definite.")
    lam = np.clip(lam, 0.0, None)
    if discrete and lam.size and np.any(t > 0) and eta * lam[-1] > 2.0:
        # (1 - eta lambda)^t grows without bound once eta lambda > 2: the returned iterates are exact,
        # but they describe gradient descent that diverges, which a caller must hear about
        warnings.warn(
            f"discrete gradient descent diverges: learning_rate={lr!r} times the largest eigenvalue of H_train "
            f"({lam[-1]:.3g}{'' if reduction == 'sum' else f' / N={N}'}) is {eta * lam[-1]:.3g} > 2, so the "
            f"outputs grow without bound; use learning_rate < {2.0 * lr / (eta * lam[-1]):.3g}.",
            ConvergenceWarning,
            stacklevel=2,
        )
    Vy = V.T @ yv
    HeV = He @ V
    out = np.empty((t.shape[0], He.shape[0]))
    for k, tk in enumerate(t):
        if discrete:
            g = np.where(lam > 0, (1.0 - (1.0 - eta * lam) ** tk) / np.where(lam > 0, lam, 1.0), eta * tk)
        else:
            g = np.where(lam > 0, -np.expm1(-eta * lam * tk) / np.where(lam > 0, lam, 1.0), eta * tk)
        out[k] = HeV @ (g * Vy)
    return out
