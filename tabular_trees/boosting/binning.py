"""Histogram split finding: per-feature bin edges, bin codes and per-bin sums of gradients and Hessians.

Every feature is cut once, before boosting, into at most ``max_bins`` bins
(:func:`compute_bin_edges`, :func:`bin_data`); a node's candidate splits are the bin
boundaries, scored from per-bin sums of ``g`` and ``h`` (:func:`build_histogram`).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_matrix, as_regression_target, check_int
from . import _boosting_kernels as _k

__all__ = ["compute_bin_edges", "bin_data", "build_histogram"]


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
    max_bins = check_int(max_bins, "max_bins", min_val=2, max_val=65535)
    return _bin_edges(as_float_matrix(X, "X"), max_bins)


def _bin_edges(X, max_bins):
    """The cuts of :func:`compute_bin_edges` for a validated ``X`` and ``max_bins``."""
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


def _binned(X, edges):
    """Bin codes of a validated ``X`` with validated ``edges``, the packed cuts and the bins per feature.

    Returns ``(codes, flat, ptr, n_bins)``: the cuts of feature ``j`` are ``flat[ptr[j]:ptr[j + 1]]``
    and it has ``n_bins[j]`` bins; the codes are uint8 when every feature has at most 256 bins.
    """
    ptr = np.zeros(len(edges) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([e.shape[0] for e in edges])
    flat = np.ascontiguousarray(np.concatenate(edges) if edges else np.zeros(0), dtype=np.float64)
    n_bins = np.array([e.shape[0] + 1 for e in edges], dtype=np.int64)
    codes = np.empty(X.shape, dtype=np.uint8 if int(n_bins.max()) <= 256 else np.uint16)
    _k.bin_columns(X, flat, ptr, codes)
    return codes, flat, ptr, n_bins


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
    X = as_float_matrix(X, "X")
    return _binned(X, _check_edges(edges, X.shape[1]))[0]


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
