"""Compiled kernels behind :mod:`tabular_trees.shapley` (hybrid points, value tables, Shapley sums).

Everything here is ``@numba.njit(cache=True)`` and takes only arrays and scalars that
:mod:`tabular_trees.shapley` has already validated.
"""

from __future__ import annotations

import numba

__all__ = ["fill_hybrids", "accumulate_values", "shapley_kernel", "interaction_kernel"]


@numba.njit(cache=True)
def fill_hybrids(X, background, start, out):
    """Fill ``out`` with the hybrid points of the flat index range ``start .. start + len(out)``.

    Flat index ``k`` enumerates (sample i, coalition mask S, background row b) with b fastest:
    ``k = (i * 2^p + S) * m + b``. Feature ``j`` is taken from ``X[i]`` if bit ``j`` of ``S``
    is set and from ``background[b]`` otherwise.
    """
    p = X.shape[1]
    m = background.shape[0]
    n_coal = 1 << p
    for r in range(out.shape[0]):
        k = start + r
        b = k % m
        rest = k // m
        mask = rest % n_coal
        i = rest // n_coal
        for j in range(p):
            if (mask >> j) & 1:
                out[r, j] = X[i, j]
            else:
                out[r, j] = background[b, j]


@numba.njit(cache=True)
def accumulate_values(pred, start, n_coal, m, values):
    """Add ``pred / m`` into ``values[i, S]`` for the flat indices ``start .. start + len(pred)``."""
    inv_m = 1.0 / m
    for r in range(pred.shape[0]):
        rest = (start + r) // m
        mask = rest % n_coal
        i = rest // n_coal
        values[i, mask] += pred[r] * inv_m


@numba.njit(cache=True)
def shapley_kernel(values, sizes, weights, phi):
    """``phi[i, j] = sum_{S not containing j} weights[|S|] (v[i, S + j] - v[i, S])``."""
    n, n_coal = values.shape
    p = phi.shape[1]
    for i in range(n):
        for mask in range(n_coal):
            w = weights[sizes[mask]]
            for j in range(p):
                bit = 1 << j
                if mask & bit:
                    continue
                phi[i, j] += w * (values[i, mask | bit] - values[i, mask])


@numba.njit(cache=True)
def interaction_kernel(values, sizes, weights, out):
    """Off-diagonal Shapley interaction values (each pair's index split equally over (j,k) and (k,j)).

    ``out[i, j, k] = sum_{S not containing j, k} weights[|S|] * D_jk v(S) / 2`` with
    ``D_jk v(S) = v(S+j+k) - v(S+j) - v(S+k) + v(S)`` and
    ``weights[s] = s! (p - s - 2)! / (p - 1)!``.
    """
    n, n_coal = values.shape
    p = out.shape[1]
    for i in range(n):
        for mask in range(n_coal):
            w = 0.5 * weights[sizes[mask]]
            for j in range(p):
                bj = 1 << j
                if mask & bj:
                    continue
                for k in range(j + 1, p):
                    bk = 1 << k
                    if mask & bk:
                        continue
                    d = (
                        values[i, mask | bj | bk]
                        - values[i, mask | bj]
                        - values[i, mask | bk]
                        + values[i, mask]
                    )
                    out[i, j, k] += w * d
        for j in range(p):
            for k in range(j + 1, p):
                out[i, k, j] = out[i, j, k]
