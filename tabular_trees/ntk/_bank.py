"""The fused oblivious-tree kernel bank (private; the public names are in :mod:`tabular_trees.ntk`).

Many oblivious-tree NTKs at once: the per-feature terms are formed once per row and shared by
every kernel of the bank (:mod:`tabular_trees.ntk._ntk_kernels` holds the compiled loops, which take
three records: the data, the settings and the lookup table of terms on distinct values).
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .._validation import as_float_matrix, as_kernel_matrix, check_int
from . import _ntk_kernels as _k
from ._closed_form import _check_index, _check_weights, _settings
from ._ntk_kernels import BankData, LookupTable


#: Most feature sets :func:`all_feature_sets` lists (each is one (n, m) kernel of a bank).
_MAX_FEATURE_SETS = 1_000_000


def all_feature_sets(n_features, max_size=3, min_size=1):
    """All sets of distinct features with ``min_size..max_size`` elements, in lexicographic order.

    Parameters
    ----------
    n_features : int
        Number of features, >= 1.
    max_size, min_size : int, default=3 and 1
        Largest and smallest set size (``1 <= min_size <= max_size``); sizes above ``n_features``
        give no sets.

    Returns
    -------
    list of tuple of int
        The feature sets, smaller sets first: the ``feature_sets`` of a :func:`kernel_bank`.

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


def _lookup_table(X, Y, settings):
    """The :class:`LookupTable`: per-feature tables of T and Sigma*Tdot (AAA) / Tdot (AAI) on distinct values.

    T_s(x, y) depends only on the pair (x_s, y_s), so for a feature with few distinct values
    (categorical, ordinal, one-hot, tic-tac-toe's three states) the terms are evaluated on the
    ``u_x * u_y`` distinct pairs and gathered. Features with many distinct values are flagged
    off and computed directly. The results are identical to direct evaluation.
    """
    alpha, beta = settings.alpha, settings.beta
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
        G = Td if settings.aai else (np.multiply.outer(ux, uy) + beta * beta) * Td
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
    return LookupTable(use, cx, cy, off, ny, tab_T, tab_G)


def _bank_setup(X, Y, feature_sets, mode, alpha, beta):
    """Validate a bank's arguments; return its three records ``(BankData, Settings, LookupTable)``."""
    X0 = X
    X = as_float_matrix(X, "X")
    Y = X if Y is None or Y is X0 else as_kernel_matrix(Y, X.shape[1], "Y")
    settings = _settings(X, Y, alpha, beta, mode)
    sets, lens = _pack_sets(feature_sets, X.shape[1])
    return BankData(X, Y, sets, lens), settings, _lookup_table(X, Y, settings)


def _result_dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {dt}.")
    return dt


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
    mode, alpha, beta : str, float, float
        As for :func:`axis_aligned_ntk` (defaults ``"AAA"``, 2.0 and 0.5).
    out : ndarray of shape (len(feature_sets), n, m), optional
        C-contiguous float64 or float32 array to write into.
    dtype : {np.float64, np.float32}, default=np.float64
        Result dtype when ``out`` is not given (terms are always computed in float64).

    Returns
    -------
    B : ndarray of shape (len(feature_sets), n, m)
        ``B[k]`` is the NTK of the oblivious tree ``feature_sets[k]``; ``out`` itself when given.

    Examples
    --------
    >>> import numpy as np
    >>> from tabular_trees.ntk import oblivious_ntk
    >>> X = np.random.default_rng(0).normal(size=(6, 4))
    >>> B = kernel_bank(X, feature_sets=all_feature_sets(4, 2))
    >>> B.shape
    (10, 6, 6)
    >>> bool(np.allclose(B[5], oblivious_ntk(X, features=(0, 2))))
    True
    """
    data, settings, table = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    shape = (data.sets.shape[0], data.X.shape[0], data.Y.shape[0])
    if out is None:
        out = np.empty(shape, dtype=_result_dtype(dtype))
    else:
        if not isinstance(out, np.ndarray) or out.shape != shape:
            raise ValueError(f"out must be an ndarray of shape {shape}, got {getattr(out, 'shape', type(out))}.")
        if out.dtype not in (np.dtype(np.float64), np.dtype(np.float32)) or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous float64 or float32 array.")
        if not out.flags.writeable:
            raise ValueError("out must be writeable.")
    _k.oblivious_bank(data, settings, table, 0, shape[0], out)
    return out


def iter_kernel_bank(X, Y=None, *, feature_sets, mode="AAA", alpha=2.0, beta=0.5, chunk_size=16, dtype=np.float64):
    """Stream the kernel bank in chunks of ``chunk_size`` kernels.

    Yields ``(start, block)`` with ``block`` of shape ``(k, n, m)`` holding kernels
    ``start .. start + k - 1``. Only one block is alive at a time if the caller does not keep
    references. The per-feature terms are recomputed per chunk (a small cost next to the
    kernel products when ``chunk_size`` is not tiny). Every argument is checked when
    ``iter_kernel_bank`` is called, before the first block is asked for.

    Parameters
    ----------
    X, Y, feature_sets, mode, alpha, beta
        As for :func:`kernel_bank`.
    chunk_size : int, default=16
        Kernels per block, >= 1.
    dtype : {np.float64, np.float32}, default=np.float64
        Dtype of the blocks.

    Yields
    ------
    start : int
        Index of the block's first kernel in ``feature_sets``.
    block : ndarray of shape (k, n, m)
        Kernels ``start .. start + k - 1``, ``k <= chunk_size``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> sets = all_feature_sets(3, 3)
    >>> [b.shape[0] for _, b in iter_kernel_bank(X, feature_sets=sets, chunk_size=3)]
    [3, 3, 1]
    """
    # every argument is validated here, when iter_kernel_bank is called, not at the first next()
    records = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    chunk_size = check_int(chunk_size, "chunk_size", min_val=1)
    return _kernel_chunks(records, chunk_size, _result_dtype(dtype))


def _kernel_chunks(records, chunk_size, dt):
    """The generator behind :func:`iter_kernel_bank` (arguments already validated)."""
    data, settings, table = records
    K = data.sets.shape[0]
    for start in range(0, K, chunk_size):
        stop = min(K, start + chunk_size)
        block = np.empty((stop - start, data.X.shape[0], data.Y.shape[0]), dtype=dt)
        _k.oblivious_bank(data, settings, table, start, stop, block)
        yield start, block


def weighted_kernel_sum(X, Y=None, *, feature_sets, weights, mode="AAA", alpha=2.0, beta=0.5):
    """``sum_k weights[k] * kernel_bank(...)[k]`` computed without storing the bank.

    This is the NTK of an ensemble whose proportion ``weights[k]`` of trees is the oblivious
    tree ``feature_sets[k]`` (Proposition 3.1), e.g. the MKL-weighted kernel.

    Parameters
    ----------
    X, Y, feature_sets, mode, alpha, beta
        As for :func:`kernel_bank`.
    weights : array-like of shape (len(feature_sets),)
        Finite, non-negative weight of each kernel (a zero weight skips that kernel).

    Returns
    -------
    K : ndarray of shape (n, m)
        The weighted sum of the bank's kernels, in float64.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> sets = [(0,), (1, 2)]
    >>> K = weighted_kernel_sum(X, feature_sets=sets, weights=[0.25, 0.75])
    >>> bool(np.allclose(K, np.tensordot([0.25, 0.75], kernel_bank(X, feature_sets=sets), 1)))
    True
    """
    data, settings, table = _bank_setup(X, Y, feature_sets, mode, alpha, beta)
    w = _check_weights(weights, data.sets.shape[0])
    out = np.empty((data.X.shape[0], data.Y.shape[0]))
    _k.oblivious_weighted_sum(data, settings, table, np.ascontiguousarray(w), out)
    return out

