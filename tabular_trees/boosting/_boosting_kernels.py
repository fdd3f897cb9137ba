"""Compiled kernels of :mod:`tabular_trees.boosting`.

Every function here takes only arrays, scalars and records that the Python code of the
package has validated: bin codes are in range, gradients and Hessians are finite, row
indices are valid. Nothing here checks its input again.

The growth settings travel as one record, :class:`GrowSettings`, so no kernel takes more
than a handful of arguments.

Histogram layout: ``hist[j, b, 0]`` = sum of gradients, ``hist[j, b, 1]`` = sum
of Hessians and ``hist[j, b, 2]`` = number of rows whose feature ``j`` falls in
bin ``b``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np


class GrowSettings(NamedTuple):
    """What one tree's growth needs besides the data: depth, penalties and shrinkage."""

    max_depth: int
    reg_lambda: float
    gamma: float
    min_child_weight: float
    learning_rate: float


@numba.njit(cache=True)
def bin_columns(X, edges, edge_ptr, out):
    """Write ``out[i, j] = #{edges of feature j < X[i, j]}`` (so ``code <= b`` iff ``x <= edge_b``)."""
    n, p = X.shape
    for j in range(p):
        e = edges[edge_ptr[j]:edge_ptr[j + 1]]
        for i in range(n):
            out[i, j] = np.searchsorted(e, X[i, j], side="left")


@numba.njit(cache=True)
def histogram(codes, grad, hess, rows, start, stop, n_bins_max, hist):
    """Accumulate (G, H, count) per (feature, bin) over ``rows[start:stop]`` into zeroed ``hist``."""
    p = codes.shape[1]
    for k in range(start, stop):
        i = rows[k]
        g = grad[i]
        h = hess[i]
        for j in range(p):
            b = codes[i, j]
            hist[j, b, 0] += g
            hist[j, b, 1] += h
            hist[j, b, 2] += 1.0


@numba.njit(cache=True)
def gain_of(GL, HL, GR, HR, lam, gamma):
    """Second-order split gain 1/2 [GL^2/(HL+l) + GR^2/(HR+l) - G^2/(H+l)] - gamma."""
    G = GL + GR
    H = HL + HR
    return 0.5 * (GL * GL / (HL + lam) + GR * GR / (HR + lam) - G * G / (H + lam)) - gamma


@numba.njit(cache=True)
def best_split(hist, n_bins, G, H, settings):
    """Best (feature, bin, gain, GL, HL, nL) over all features and bin boundaries.

    A split "bin <= b goes left" is admissible when both children hold at
    least one row and a Hessian sum >= ``settings.min_child_weight``. Returns
    ``feature = -1`` when no admissible split has positive gain. Ties keep the
    first candidate (lowest feature, then lowest bin).
    """
    best_f = -1
    best_b = -1
    best_gain = 0.0
    best_GL = 0.0
    best_HL = 0.0
    best_nL = 0.0
    lam = settings.reg_lambda
    gamma = settings.gamma
    min_child_weight = settings.min_child_weight
    p = hist.shape[0]
    n_total = 0.0
    for b in range(n_bins[0]):
        n_total += hist[0, b, 2]
    for j in range(p):
        GL = 0.0
        HL = 0.0
        nL = 0.0
        for b in range(n_bins[j] - 1):
            GL += hist[j, b, 0]
            HL += hist[j, b, 1]
            nL += hist[j, b, 2]
            if nL == 0.0:
                continue
            nR = n_total - nL
            if nR <= 0.0:
                break
            GR = G - GL
            HR = H - HL
            if HL < min_child_weight or HR < min_child_weight:
                continue
            g = gain_of(GL, HL, GR, HR, lam, gamma)
            if g > best_gain:
                best_gain = g
                best_f = j
                best_b = b
                best_GL = GL
                best_HL = HL
                best_nL = nL
    return best_f, best_b, best_gain, best_GL, best_HL, best_nL


@numba.njit(cache=True)
def _partition(codes, rows, start, stop, feature, bin_, buf):
    """Stable in-place partition of ``rows[start:stop]``: codes <= bin_ first. Returns the split point."""
    nl = start
    nr = 0
    for k in range(start, stop):
        i = rows[k]
        if codes[i, feature] <= bin_:
            rows[nl] = i
            nl += 1
        else:
            buf[nr] = i
            nr += 1
    for k in range(nr):
        rows[nl + k] = buf[k]
    return nl


@numba.njit(cache=True)
def grow_tree(codes, grad, hess, n_bins, n_bins_max, settings, raw_pred):
    """Grow one depth-wise regression tree on (gradient, Hessian) pairs with :class:`GrowSettings`.

    Nodes are split when the best admissible gain is positive and the node is
    shallower than ``settings.max_depth``. Each node's histogram is built from its rows,
    except the larger child of a split whose histogram is parent minus smaller
    child (the subtraction trick). Leaves get ``learning_rate * (-G / (H + lam))``
    and ``raw_pred`` of the training rows in each leaf is incremented by it.

    Returns node arrays ``(feature, bin, left, right, value, gain, G, H, count, n_nodes)``;
    ``feature == -1`` marks a leaf.
    """
    n, p = codes.shape
    max_depth = settings.max_depth
    lam = settings.reg_lambda
    learning_rate = settings.learning_rate
    max_nodes = 2 ** (max_depth + 1) - 1
    feature = np.full(max_nodes, -1, dtype=np.int64)
    split_bin = np.full(max_nodes, -1, dtype=np.int64)
    left = np.full(max_nodes, -1, dtype=np.int64)
    right = np.full(max_nodes, -1, dtype=np.int64)
    value = np.zeros(max_nodes)
    gain = np.zeros(max_nodes)
    sum_g = np.zeros(max_nodes)
    sum_h = np.zeros(max_nodes)
    count = np.zeros(max_nodes, dtype=np.int64)

    rows = np.arange(n).astype(np.int64)
    buf = np.empty(n, dtype=np.int64)

    # Histogram pool: one slot per pending node on the DFS stack.
    n_slots = 2 * max_depth + 3
    pool = np.zeros((n_slots, p, n_bins_max, 3))
    free = np.empty(n_slots, dtype=np.int64)
    n_free = n_slots
    for s in range(n_slots):
        free[s] = n_slots - 1 - s

    # DFS stack, one row (node, start, stop, depth, slot) per pending node.
    stack = np.empty((max_nodes, 5), dtype=np.int64)

    G0 = 0.0
    H0 = 0.0
    for i in range(n):
        G0 += grad[i]
        H0 += hess[i]
    n_free -= 1
    slot0 = free[n_free]
    if max_depth > 0:
        histogram(codes, grad, hess, rows, 0, n, n_bins_max, pool[slot0])
    sum_g[0] = G0
    sum_h[0] = H0
    count[0] = n
    n_nodes = 1
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, 0, n, 0, slot0
    top = 1
    while top > 0:
        top -= 1
        node, start, stop, depth, slot = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
        G = sum_g[node]
        H = sum_h[node]
        f = -1
        if depth < max_depth:
            f, b, g_best, GL, HL, nL = best_split(pool[slot], n_bins, G, H, settings)
        if f < 0:
            w = learning_rate * (-G / (H + lam))
            value[node] = w
            for k in range(start, stop):
                raw_pred[rows[k]] += w
            pool[slot, :, :, :] = 0.0
            free[n_free] = slot
            n_free += 1
            continue
        mid = _partition(codes, rows, start, stop, f, b, buf)
        feature[node] = f
        split_bin[node] = b
        gain[node] = g_best
        lc = n_nodes
        rc = n_nodes + 1
        n_nodes += 2
        left[node] = lc
        right[node] = rc
        sum_g[lc] = GL
        sum_h[lc] = HL
        count[lc] = mid - start
        sum_g[rc] = G - GL
        sum_h[rc] = H - HL
        count[rc] = stop - mid
        if depth + 1 < max_depth:
            # Children will be considered for splitting: they need histograms.
            n_free -= 1
            s_small = free[n_free]
            if mid - start <= stop - mid:
                histogram(codes, grad, hess, rows, start, mid, n_bins_max, pool[s_small])
                small_is_left = True
            else:
                histogram(codes, grad, hess, rows, mid, stop, n_bins_max, pool[s_small])
                small_is_left = False
            # Parent slot becomes the larger child's histogram: parent - small.
            pool[slot] -= pool[s_small]
            if small_is_left:
                sl = s_small
                sr = slot
            else:
                sl = slot
                sr = s_small
        else:
            # Children are leaves at max_depth: no histogram needed.
            pool[slot, :, :, :] = 0.0
            free[n_free] = slot
            n_free += 1
            sl = -1
            sr = -1
        # Push right then left so the left subtree is processed first.
        for child, c0, c1, cs in ((rc, mid, stop, sr), (lc, start, mid, sl)):
            if cs < 0:
                # Leaf at max depth.
                w = learning_rate * (-sum_g[child] / (sum_h[child] + lam))
                value[child] = w
                for k in range(c0, c1):
                    raw_pred[rows[k]] += w
            else:
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = child, c0, c1, depth + 1, cs
                top += 1
    return (feature[:n_nodes].copy(), split_bin[:n_nodes].copy(), left[:n_nodes].copy(),
            right[:n_nodes].copy(), value[:n_nodes].copy(), gain[:n_nodes].copy(),
            sum_g[:n_nodes].copy(), sum_h[:n_nodes].copy(), count[:n_nodes].copy(), n_nodes)


@numba.njit(cache=True)
def _leaf(X, i, feature, threshold, left, right):
    """Leaf reached by row ``i`` of ``X``: left when ``X[i, feature] <= threshold``."""
    node = 0
    while feature[node] >= 0:
        if X[i, feature[node]] <= threshold[node]:
            node = left[node]
        else:
            node = right[node]
    return node


@numba.njit(cache=True)
def predict_tree(X, feature, threshold, left, right, value, out):
    """Add one tree's output to ``out``: go left when ``x[feature] <= threshold``."""
    for i in range(X.shape[0]):
        out[i] += value[_leaf(X, i, feature, threshold, left, right)]


@numba.njit(cache=True)
def apply_tree(X, feature, threshold, left, right, out):
    """Write the leaf index of every row into ``out``."""
    for i in range(X.shape[0]):
        out[i] = _leaf(X, i, feature, threshold, left, right)
