"""The per-kernel computation of the AAA/AAI oblivious-tree NTK as the paper's authors organise it.

Kanoh & Sugiyama's public notebooks (repository ``ryuichi0704/aa-tntk``, ``src/mkl_tictactoe.ipynb``)
compute each of the 129 tic-tac-toe kernels with one call of a NumPy function that, *for every call*,

1. loops over **all** features ``f`` of the data (not only the kernel's own) and builds, as dense
   ``(n, n)`` arrays, the node term ``x_f x_f' + beta**2``, the full Gram matrix ``X X^T + beta**2``
   (formed in every iteration, although only AAI uses it), the diagonal of the node term read element by
   element into a Python list and tiled into an ``(n, n)`` array, and from these the expectations
   ``T_f`` and ``Tdot_f``;
2. then accumulates ``2**D`` times the node terms ``Sigma_s Tdot_s prod_{t != s} T_t`` and the leaf term
   ``prod_t T_t`` of the kernel's feature set.

This module re-implements that algorithm from the formulas (it is our code, not theirs), with the same
sequence of array operations, so that ``benchmarks/bench_ntk.py`` and chapter 8 can time what the
authors' code does rather than a leaner NumPy version. It is public so that the benchmark and the chapter
call one implementation; it is a timing reference, not the way to compute kernels: use
:func:`tabular_trees.ntk.kernel_bank`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._validation import as_float_matrix
from .ntk._closed_form import _check_index, _settings

__all__ = ["per_kernel_loop", "per_kernel_loop_bank"]


def _tiled_diagonal(S):
    # Diagonal read entry by entry into a list, then tiled into a square array (row i holds the diagonal).
    diag = [S[i, i] for i in range(S.shape[0])]
    rows = np.array(diag * len(diag)).reshape(len(diag), len(diag))
    return rows, rows.T


def _expectations(S, d_row, d_col, gap, alpha):
    # The closed forms (A.2)-(A.3). Two steps differ from a literal transcription, so that the loop stays
    # accurate wherever the kernel bank accepts the inputs (|x| up to ~1e74): the arcsin argument is clipped
    # to [-1, 1] (it can round past 1 on the diagonal), and the determinant d_row * d_col - S**2 inside
    # Tdot is taken as ``gap`` = beta**2 (x - x')**2 (Lagrange's identity for one feature) instead of by
    # subtracting two nearly equal products, which lost every digit for |x| ~ 1e6.
    a2 = alpha**2
    r = np.clip(a2 * S / np.sqrt((a2 * d_row + 0.5) * (a2 * d_col + 0.5)), -1.0, 1.0)
    T = 0.25 + np.arcsin(r) / (2 * math.pi)
    Tdot = (a2 / math.pi) / np.sqrt(1.0 + 2.0 * a2 * (d_row + d_col) + 4.0 * a2 * a2 * gap)
    return T, Tdot


def _check_features(features, n_features, name="features"):
    """``features`` as a list of int feature indices, or a clear error naming ``name``."""
    if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
        raise TypeError(
            f"{name} must be a tuple of int feature indices, one per depth (e.g. (0, 2)), "
            f"got {type(features).__name__} {features!r}."
        )
    feats = [_check_index(f, n_features, f"{name} entry") for f in features]
    if not feats:
        raise ValueError(f"{name} is empty; give at least one feature index, e.g. (0,).")
    return feats


def per_kernel_loop(X, features, *, mode="AAA", alpha=2.0, beta=0.5):
    """One oblivious-tree NTK computed as the authors' per-kernel function does (all features, every call).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    features : sequence of int
        The features of the oblivious tree, one per depth.
    mode : {"AAA", "AAI"}, default="AAA"
    alpha, beta : float
        Decision-function scale (``alpha > 0``) and threshold scale (``beta >= 0``).

    Returns
    -------
    K : ndarray of shape (n_samples, n_samples)
        Equal (to rounding) to ``ntk.oblivious_ntk(X, features=features, mode=mode, alpha=alpha, beta=beta)``
        at every scale the kernel bank accepts; inputs beyond its limit are refused with the bank's error.

    Raises
    ------
    TypeError
        If ``features`` is not a tuple of int feature indices.
    ValueError
        If ``features`` is empty or out of range, or ``X``, ``mode``, ``alpha`` or ``beta`` is invalid
        (including inputs too large for the closed forms, as :func:`tabular_trees.ntk.kernel_bank`).

    Examples
    --------
    >>> import numpy as np
    >>> from tabular_trees import ntk
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> K = per_kernel_loop(X, (0, 2))
    >>> bool(np.allclose(K, ntk.oblivious_ntk(X, features=(0, 2)), rtol=1e-12, atol=0))
    True
    """
    X = as_float_matrix(X, "X")
    settings = _settings(X, X, alpha, beta, mode)  # the kernel bank's checks and its scale limit
    mode, alpha, beta = ("AAI" if settings.aai else "AAA"), settings.alpha, settings.beta
    feats = _check_features(features, X.shape[1])
    return _loop(X, feats, mode, alpha, beta)


def _loop(X, feats, mode, alpha, beta):
    sigma, T, Tdot = [], [], []
    for f in range(X.shape[1]):  # every feature, in every call
        S = np.outer(X[:, f], X[:, f]) + beta**2
        S_full = X @ X.T + beta**2
        sigma.append(S_full if mode == "AAI" else S)
        d_row, d_col = _tiled_diagonal(S)
        gap = beta**2 * np.subtract.outer(X[:, f], X[:, f]) ** 2
        t, td = _expectations(S, d_row, d_col, gap, alpha)
        T.append(t)
        Tdot.append(td)
    scale = 2 ** len(feats)
    K = np.zeros((X.shape[0], X.shape[0]))
    for i, s in enumerate(feats):
        node = sigma[s] * Tdot[s]
        for t in feats[:i] + feats[i + 1:]:
            node *= T[t]
        K += node * scale
    leaf = np.ones_like(K)
    for t in feats:
        leaf *= T[t]
    K += leaf * scale
    return K


def per_kernel_loop_bank(X, feature_sets, *, mode="AAA", alpha=2.0, beta=0.5):
    """:func:`per_kernel_loop` for each feature set, collected in a list (as the authors' notebook does).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> [K.shape for K in per_kernel_loop_bank(X, [(0,), (1, 2)], mode="AAI")]
    [(5, 5), (5, 5)]
    """
    X = as_float_matrix(X, "X")
    settings = _settings(X, X, alpha, beta, mode)
    mode, alpha, beta = ("AAI" if settings.aai else "AAA"), settings.alpha, settings.beta
    if isinstance(feature_sets, (str, bytes, numbers.Number)) or not hasattr(feature_sets, "__iter__"):
        raise TypeError(
            "feature_sets must be a list of tuples of int feature indices (e.g. [(0,), (1, 2)]), "
            f"got {type(feature_sets).__name__} {feature_sets!r}."
        )
    sets = [_check_features(fs, X.shape[1], f"feature_sets[{k}]") for k, fs in enumerate(feature_sets)]
    if not sets:
        raise ValueError("feature_sets is empty; give at least one tuple of feature indices.")
    return [_loop(X, feats, mode, alpha, beta) for feats in sets]
