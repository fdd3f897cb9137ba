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

import numpy as np

from ._validation import as_float_matrix, check_option, check_real

__all__ = ["per_kernel_loop", "per_kernel_loop_bank"]


def _tiled_diagonal(S):
    # Diagonal read entry by entry into a list, then tiled into a square array (row i holds the diagonal).
    diag = [S[i, i] for i in range(S.shape[0])]
    rows = np.array(diag * len(diag)).reshape(len(diag), len(diag))
    return rows, rows.T


def _expectations(S, d_row, d_col, alpha):
    a2 = alpha**2
    T = 0.25 + np.arcsin(a2 * S / np.sqrt((a2 * d_row + 0.5) * (a2 * d_col + 0.5))) / (2 * math.pi)
    Tdot = (a2 / math.pi) / np.sqrt((2 * a2 * d_row + 1) * (2 * a2 * d_col + 1) - 4 * a2 * a2 * S**2)
    return T, Tdot


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
        Equal (to rounding) to ``ntk.oblivious_ntk(X, features=features, mode=mode, alpha=alpha, beta=beta)``.

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
    mode = check_option(mode, "mode", ("AAA", "AAI"))
    alpha = check_real(alpha, "alpha", min_val=0.0, include_boundaries="neither")
    beta = check_real(beta, "beta", min_val=0.0)
    feats = [int(f) for f in features]
    if not feats or any(not 0 <= f < X.shape[1] for f in feats):
        raise ValueError(f"features must be a non-empty sequence of indices in [0, {X.shape[1]}), got {features!r}.")
    sigma, T, Tdot = [], [], []
    for f in range(X.shape[1]):  # every feature, in every call
        S = np.outer(X[:, f], X[:, f]) + beta**2
        S_full = X @ X.T + beta**2
        sigma.append(S_full if mode == "AAI" else S)
        d_row, d_col = _tiled_diagonal(S)
        t, td = _expectations(S, d_row, d_col, alpha)
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
    return [per_kernel_loop(X, feats, mode=mode, alpha=alpha, beta=beta) for feats in feature_sets]
