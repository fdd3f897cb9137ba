"""Compiled kernels for :mod:`tabular_trees.ntk` (private).

Every function here takes only validated, C-contiguous float64 / int64 arrays and
scalars; the public wrappers in :mod:`tabular_trees.ntk` check shapes, finiteness
and index ranges before calling them.

The bank kernels take three records (named tuples, built once per call by the Python
wrapper; numba compiles them as tuples of typed fields):

* :class:`BankData` — the inputs ``X``, ``Y`` and the packed feature sets;
* :class:`Settings` — ``aai`` (the AAI mode), ``alpha`` and ``beta``;
* :class:`LookupTable` — the per-feature tables of the terms on distinct values.

The fused kernel bank computes, for one row ``i`` of ``X`` at a time (rows are
distributed over threads with ``prange``), the per-feature node expectations
``T_s(x_i, y_j)`` and ``Sigma_s(x_i, y_j) * Tdot_s(x_i, y_j)`` for *every* feature
``s`` and every column ``j`` once, in a small per-thread buffer of shape
``(n_features, m)``, and then forms all requested oblivious-tree kernels for that
row from those shared terms. Nothing of size ``n_features * n * m`` is ever stored.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

#: The data of a bank: ``X`` (n, F) and ``Y`` (m, F) float64, ``sets`` (K, Dmax) int64 feature
#: indices (padded) and ``lens`` (K,) int64 depths.
BankData = namedtuple("BankData", ["X", "Y", "sets", "lens"])

#: The kernel's settings: ``aai`` selects Sigma = <x, y> + beta^2 (AAI) instead of x_s y_s + beta^2 (AAA).
Settings = namedtuple("Settings", ["aai", "alpha", "beta"])

#: Per-feature tables of T and G (Sigma*Tdot for AAA, Tdot for AAI) on the distinct values of a feature.
#: ``use`` (F,) bool flags the features that have one; ``cx`` (n, F) / ``cy`` (m, F) int64 are the codes
#: of the rows' values; the table of feature ``s`` starts at ``offsets[s]`` in the flat ``T`` and ``G`` and
#: has ``ny[s]`` columns (the distinct values of ``Y[:, s]``).
LookupTable = namedtuple("LookupTable", ["use", "cx", "cy", "offsets", "ny", "T", "G"])

_INV_2PI = 1.0 / (2.0 * math.pi)
_INV_PI = 1.0 / math.pi


@numba.njit(cache=True, inline="always")
def _t_and_tdot(aij, aii, ajj, det, alpha2):
    """Closed forms (A.2)-(A.3) for one pair.

    ``aij = <x_S, y_S> + beta^2``, ``aii``/``ajj`` the corresponding squared norms
    plus ``beta^2`` and ``det = aii * ajj - aij**2 >= 0`` (computed by the caller
    in a cancellation-free form). Returns ``(T, Tdot)``.
    """
    r = alpha2 * aij / math.sqrt((alpha2 * aii + 0.5) * (alpha2 * ajj + 0.5))
    if r > 1.0:
        r = 1.0
    elif r < -1.0:
        r = -1.0
    t = 0.25 + _INV_2PI * math.asin(r)
    if det < 0.0:
        det = 0.0
    den = 1.0 + 2.0 * alpha2 * (aii + ajj) + 4.0 * alpha2 * alpha2 * det
    td = alpha2 * _INV_PI / math.sqrt(den)
    return t, td


@numba.njit(cache=True, parallel=True)
def single_feature_terms(x, y, alpha, beta, T, Td):
    """T and Tdot for one feature column: ``x`` (n,), ``y`` (m,) -> ``T``, ``Td`` (n, m)."""
    n = x.shape[0]
    m = y.shape[0]
    a2 = alpha * alpha
    b2 = beta * beta
    for i in numba.prange(n):
        xi = x[i]
        aii = xi * xi + b2
        for j in range(m):
            yj = y[j]
            diff = xi - yj
            t, td = _t_and_tdot(xi * yj + b2, aii, yj * yj + b2, b2 * diff * diff, a2)
            T[i, j] = t
            Td[i, j] = td


@numba.njit(cache=True, parallel=True)
def multi_feature_terms(X, Y, alpha, beta, T, Td):
    """T and Tdot for a split on all columns of ``X`` (n, k) / ``Y`` (m, k) jointly.

    ``aii * ajj - aij^2`` is evaluated with Lagrange's identity
    ``|x|^2 |y|^2 - <x,y>^2 + beta^2 |x - y|^2`` so it never goes negative by cancellation.
    """
    n, k = X.shape
    m = Y.shape[0]
    a2 = alpha * alpha
    b2 = beta * beta
    yy = np.empty(m)
    for j in range(m):
        s = 0.0
        for f in range(k):
            s += Y[j, f] * Y[j, f]
        yy[j] = s
    for i in numba.prange(n):
        xx = 0.0
        for f in range(k):
            xx += X[i, f] * X[i, f]
        for j in range(m):
            xy = 0.0
            d2 = 0.0
            for f in range(k):
                xy += X[i, f] * Y[j, f]
                d = X[i, f] - Y[j, f]
                d2 += d * d
            det = xx * yy[j] - xy * xy
            if det < 0.0:
                det = 0.0
            t, td = _t_and_tdot(xy + b2, xx + b2, yy[j] + b2, det + b2 * d2, a2)
            T[i, j] = t
            Td[i, j] = td


@numba.njit(cache=True, inline="always")
def _oblivious_value(Trow, Grow, sets, lens, k, j):
    """Kernel value 2^D [sum_d G_{s_d} prod_{t!=d} T_{s_t} + prod_d T_{s_d}] at column j."""
    D = lens[k]
    if D == 1:
        s0 = sets[k, 0]
        return 2.0 * (Grow[s0, j] + Trow[s0, j])
    if D == 2:
        s0 = sets[k, 0]
        s1 = sets[k, 1]
        t0 = Trow[s0, j]
        t1 = Trow[s1, j]
        return 4.0 * (Grow[s0, j] * t1 + Grow[s1, j] * t0 + t0 * t1)
    if D == 3:
        s0 = sets[k, 0]
        s1 = sets[k, 1]
        s2 = sets[k, 2]
        t0 = Trow[s0, j]
        t1 = Trow[s1, j]
        t2 = Trow[s2, j]
        return 8.0 * (Grow[s0, j] * t1 * t2 + Grow[s1, j] * t0 * t2 + Grow[s2, j] * t0 * t1 + t0 * t1 * t2)
    # general depth: O(D^2) products
    acc = 0.0
    prod_all = 1.0
    for d in range(D):
        sd = sets[k, d]
        prod_all *= Trow[sd, j]
        p = Grow[sd, j]
        for t in range(D):
            if t != d:
                p *= Trow[sets[k, t], j]
        acc += p
    return (2.0**D) * (acc + prod_all)


@numba.njit(cache=True, inline="always")
def _row_terms(data, table, scales, aai, i, Trow, Grow, dot_row):
    """Fill the per-feature buffers for row i: ``Trow[s, j] = T_s``, ``Grow[s, j] = Sigma_s * Tdot_s``.

    ``scales`` is :func:`_scales`' ``(a2, b2, inv_sx, inv_sy)``. Features flagged in ``table.use``
    have few distinct values: their terms are gathered from the :class:`LookupTable` (``G`` holds
    Sigma*Tdot for AAA and Tdot for AAI). For AAI, ``dot_row`` (scratch of length m) receives
    Sigma = <x_i, y_j> + beta^2 first. The caller allocates the buffers in its own loop body: the
    compiled loops are a few per cent slower when the arrays come back from an inlined function.
    """
    X, Y = data.X, data.Y
    a2, b2, inv_sx, inv_sy = scales
    use_tab, cx, cy, tab_off, tab_ny, tab_T, tab_G = table
    F = X.shape[1]
    m = Y.shape[0]
    c_tdot = a2 * _INV_PI
    if aai:
        for j in range(m):
            acc = b2
            for f in range(F):
                acc += X[i, f] * Y[j, f]
            dot_row[j] = acc
    for s in range(F):
        if use_tab[s]:
            base = tab_off[s] + cx[i, s] * tab_ny[s]
            if aai:
                for j in range(m):
                    idx = base + cy[j, s]
                    Trow[s, j] = tab_T[idx]
                    Grow[s, j] = dot_row[j] * tab_G[idx]
            else:
                for j in range(m):
                    idx = base + cy[j, s]
                    Trow[s, j] = tab_T[idx]
                    Grow[s, j] = tab_G[idx]
            continue
        xi = X[i, s]
        aii = a2 * (xi * xi + b2)
        isx = inv_sx[i, s]
        for j in range(m):
            yj = Y[j, s]
            ajj = a2 * (yj * yj + b2)
            r = a2 * (xi * yj + b2) * isx * inv_sy[j, s]
            if r > 1.0:
                r = 1.0
            elif r < -1.0:
                r = -1.0
            Trow[s, j] = 0.25 + _INV_2PI * math.asin(r)
            diff = xi - yj
            den = 1.0 + 2.0 * (aii + ajj) + 4.0 * a2 * a2 * b2 * diff * diff
            td = c_tdot / math.sqrt(den)
            if aai:
                Grow[s, j] = dot_row[j] * td
            else:
                Grow[s, j] = (xi * yj + b2) * td


@numba.njit(cache=True, inline="always")
def _row_kernels(Trow, Grow, sets, lens, k_start, k_stop, out, i):
    """out[k - k_start, i, :] for k in k_start..k_stop-1; the depth branch is hoisted out of the j loop."""
    m = Trow.shape[1]
    for k in range(k_start, k_stop):
        kk = k - k_start
        D = lens[k]
        o = out[kk, i]
        if D == 1:
            t0 = Trow[sets[k, 0]]
            g0 = Grow[sets[k, 0]]
            for j in range(m):
                o[j] = 2.0 * (g0[j] + t0[j])
        elif D == 2:
            t0 = Trow[sets[k, 0]]
            g0 = Grow[sets[k, 0]]
            t1 = Trow[sets[k, 1]]
            g1 = Grow[sets[k, 1]]
            for j in range(m):
                o[j] = 4.0 * (g0[j] * t1[j] + g1[j] * t0[j] + t0[j] * t1[j])
        elif D == 3:
            t0 = Trow[sets[k, 0]]
            g0 = Grow[sets[k, 0]]
            t1 = Trow[sets[k, 1]]
            g1 = Grow[sets[k, 1]]
            t2 = Trow[sets[k, 2]]
            g2 = Grow[sets[k, 2]]
            for j in range(m):
                a = t0[j] * t1[j]
                o[j] = 8.0 * (g0[j] * t1[j] * t2[j] + g1[j] * t0[j] * t2[j] + g2[j] * a + a * t2[j])
        else:
            for j in range(m):
                o[j] = _oblivious_value(Trow, Grow, sets, lens, k, j)


@numba.njit(cache=True)
def _inv_sqrt_terms(X, a2, b2):
    n, F = X.shape
    out = np.empty((n, F))
    for i in range(n):
        for s in range(F):
            out[i, s] = 1.0 / math.sqrt(a2 * (X[i, s] * X[i, s] + b2) + 0.5)
    return out


@numba.njit(cache=True)
def _scales(data, settings):
    """``(alpha^2, beta^2, 1/sqrt(alpha^2 (x^2 + beta^2) + 1/2) for X and for Y)``, shared by all rows."""
    a2 = settings.alpha * settings.alpha
    b2 = settings.beta * settings.beta
    return a2, b2, _inv_sqrt_terms(data.X, a2, b2), _inv_sqrt_terms(data.Y, a2, b2)


@numba.njit(cache=True, parallel=True)
def oblivious_bank(data, settings, table, k_start, k_stop, out):
    """Kernels ``k_start..k_stop-1`` of an oblivious-tree bank into ``out`` (k_stop-k_start, n, m).

    ``data`` is a :class:`BankData`, ``settings`` a :class:`Settings`, ``table`` a
    :class:`LookupTable`. ``out`` may be float64 or float32.
    """
    scales = _scales(data, settings)
    aai = settings.aai
    n, F = data.X.shape
    m = data.Y.shape[0]
    for i in numba.prange(n):
        # the row buffers are allocated here, in the loop body, and filled by the inlined _row_terms
        Trow = np.empty((F, m))
        Grow = np.empty((F, m))
        dot_row = np.empty(m)
        _row_terms(data, table, scales, aai, i, Trow, Grow, dot_row)
        _row_kernels(Trow, Grow, data.sets, data.lens, k_start, k_stop, out, i)


@numba.njit(cache=True, parallel=True)
def oblivious_weighted_sum(data, settings, table, weights, out):
    """``out[i, j] = sum_k weights[k] * K_k[i, j]`` without storing any K_k (records as :func:`oblivious_bank`).

    The row loop is :func:`oblivious_bank`'s; it is written out again rather than shared (for example
    through one kernel with a store-or-sum switch) because every shared form measured 2-6 % slower.
    """
    scales = _scales(data, settings)
    aai = settings.aai
    sets, lens = data.sets, data.lens
    n, F = data.X.shape
    m = data.Y.shape[0]
    for i in numba.prange(n):
        Trow = np.empty((F, m))
        Grow = np.empty((F, m))
        dot_row = np.empty(m)
        _row_terms(data, table, scales, aai, i, Trow, Grow, dot_row)
        for j in range(m):
            out[i, j] = 0.0
        for k in range(sets.shape[0]):
            w = weights[k]
            if w == 0.0:
                continue
            for j in range(m):
                out[i, j] += w * _oblivious_value(Trow, Grow, sets, lens, k, j)
