"""Compiled kernels of the soft decision trees (``soft_tree.py``): routing probabilities and hard routing.

Private: the public functions of :mod:`tabular_trees.bayes.soft_split_tree` validate their inputs and
call these.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _sigmoid(z):
    if z >= 0.0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


@numba.njit(cache=True, inline="always")
def _split_value(X, i, n, feature, simplex, use_simplex):
    """The value row ``i`` compares with node ``n``'s threshold: ``x·Δ_n`` (HMC-DFI) or ``x_κ_n`` (HMC-DF)."""
    if use_simplex:
        xv = 0.0
        for f in range(X.shape[1]):
            xv += X[i, f] * simplex[n, f]
        return xv
    return X[i, feature[n]]


@numba.njit(cache=True)
def _node_probabilities(X, left, right, feature, threshold, simplex, use_simplex, h, phi, psi):
    """Fill ``phi[i, n]`` (probability of reaching node n) and ``psi[i, n]`` (prob. of going right)."""
    n_samples = X.shape[0]
    n_nodes = left.shape[0]
    for i in range(n_samples):
        phi[i, 0] = 1.0
        for n in range(n_nodes):
            if left[n] < 0:
                psi[i, n] = 0.0
                continue
            ph = phi[i, n]
            if ph == 0.0:  # unreachable node: its whole subtree has probability 0
                psi[i, n] = 0.0
                phi[i, left[n]] = 0.0
                phi[i, right[n]] = 0.0
                continue
            xv = _split_value(X, i, n, feature, simplex, use_simplex)
            z = (xv - threshold[n]) / h
            # beyond |z| = 40 the logistic equals 0 or 1 to double precision (error < 5e-18)
            if z > 40.0:
                s = 1.0
            elif z < -40.0:
                s = 0.0
            else:
                s = _sigmoid(z)
            psi[i, n] = s
            phi[i, left[n]] = ph * (1.0 - s)
            phi[i, right[n]] = ph * s


@numba.njit(cache=True)
def _hard_route(X, left, right, feature, threshold, simplex, use_simplex, out):
    """Leaf id reached by each row when splits are hard (right iff value > τ)."""
    for i in range(X.shape[0]):
        n = 0
        while left[n] >= 0:
            xv = _split_value(X, i, n, feature, simplex, use_simplex)
            n = right[n] if xv > threshold[n] else left[n]
        out[i] = n
