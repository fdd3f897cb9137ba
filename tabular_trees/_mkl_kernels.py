"""Compiled kernels behind :mod:`tabular_trees.mkl` (EasyMKL's margin QP and the kernel checks).

Everything here is ``@numba.njit(cache=True)`` and takes only arrays and scalars that
:mod:`tabular_trees.mkl` has already validated.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["smo_two_simplex", "finite_and_max_asymmetry"]


@numba.njit(cache=True)
def smo_two_simplex(Q, cls, gamma, tol, max_iter):
    """Minimise 0.5 g^T Q g over {g >= 0, sum over each class = 1}; gamma is updated in place.

    ``cls`` holds 0/1 class codes. Returns (n_iter, final max KKT violation).
    """
    n = Q.shape[0]
    grad = Q @ gamma
    it = 0
    viol = np.inf
    while it < max_iter:
        # most violating pair in each class
        best_viol = -1.0
        bi = -1
        bj = -1
        for c in range(2):
            gmax = -np.inf
            imax = -1
            gmin = np.inf
            jmin = -1
            for k in range(n):
                if cls[k] != c:
                    continue
                if gamma[k] > 0.0 and grad[k] > gmax:
                    gmax = grad[k]
                    imax = k
                if grad[k] < gmin:
                    gmin = grad[k]
                    jmin = k
            if imax >= 0 and gmax - gmin > best_viol:
                best_viol = gmax - gmin
                bi = imax
                bj = jmin
        viol = best_viol
        if viol <= tol or bi == bj:
            break
        curv = Q[bi, bi] + Q[bj, bj] - 2.0 * Q[bi, bj]
        diff = grad[bi] - grad[bj]
        if curv > 1e-300:
            delta = diff / curv
        else:
            delta = gamma[bi]
        if delta > gamma[bi]:
            delta = gamma[bi]
        gamma[bi] -= delta
        gamma[bj] += delta
        if gamma[bi] < 0.0:
            gamma[bi] = 0.0
        for k in range(n):
            grad[k] += delta * (Q[k, bj] - Q[k, bi])
        it += 1
        # periodic gradient refresh against drift
        if it % 2000 == 0:
            grad = Q @ gamma
    return it, viol


@numba.njit(cache=True)
def finite_and_max_asymmetry(K):
    """(all entries finite, max |K_r[i, j] - K_r[j, i]|, max |K|) in one pass, without temporaries."""
    finite = True
    asym = 0.0
    peak = 0.0
    R, n, m = K.shape
    for r in range(R):
        for i in range(n):
            for j in range(m):
                v = K[r, i, j]
                if not np.isfinite(v):
                    finite = False
                a = abs(v)
                if a > peak:
                    peak = a
                if n == m and j > i:
                    d = abs(v - K[r, j, i])
                    if d > asym:
                        asym = d
    return finite, asym, peak
