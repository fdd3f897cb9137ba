"""Compiled kernels behind :mod:`tabular_trees.tree` (CART, best-split search).

Everything here is ``@numba.njit(cache=True)`` and takes only arrays and scalars
that :mod:`tabular_trees.tree` has already validated. The tree builder follows
the *behaviour* of scikit-learn's dense best splitter and depth-first builder
(version 1.9) closely enough that the fitted trees are bit-for-bit the same:

* features are visited in the random order scikit-learn's splitter draws with its
  own xorshift generator (``_rand_int``), including its bookkeeping of features
  already known to be constant, so exact ties between features break the same way;
* samples of a node are sorted per feature with an introsort using a median-of-3
  pivot and a three-way partition (the sort scikit-learn uses), and the samples of a
  split node are partitioned with a two-pointer sweep, so floating-point sums are
  accumulated in the same order;
* candidate thresholds skip values closer than ``FEATURE_THRESHOLD = 1e-7``
  (compared in float32) and are the float64 midpoint ``a/2 + b/2`` of two float32
  values; the best split maximises the "proxy improvement" with a strict ``>``;
* missing values (NaN) in a column that has any: the node's missing samples are set
  aside with the same swaps, the thresholds are scanned with them on the right (then
  also the split "non-missing | missing", threshold ``+inf``) and, in a second pass,
  on the left; a split feature without NaN in the node sends NaN at predict time to
  the child with more samples. All other columns take the plain path, unchanged.

The code is our own; only these observable rules were taken from scikit-learn.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

#: Values of one feature closer than this (compared in float32) count as equal.
FEATURE_THRESHOLD = np.float32(1e-7)
#: Machine epsilon used by the stopping rules (impurity <= EPSILON means a pure node).
EPSILON = np.finfo(np.float64).eps
#: Largest value of scikit-learn's random generator (2**31 - 1).
RAND_R_MAX = 2147483647

MSE, GINI, ENTROPY = 0, 1, 2

_LN2 = math.log(2.0)


# --------------------------------------------------------------------------- records
# The kernels take a few named records instead of long lists of positional arrays; numba compiles
# a namedtuple of arrays and scalars to a plain struct, so reading a field costs nothing.
CartData = namedtuple("CartData", ["X", "y", "codes", "n_classes", "missing"])
CartData.__doc__ = """What a tree is grown on, validated by :mod:`tabular_trees.tree` (built once per fit).

``X`` float32 (n, d), column-major (a node reads one column at a time); ``y`` float64 (n,)
regression targets and ``codes`` int64 (n,) class codes ``0..n_classes-1`` (the one the
criterion does not read is a dummy; ``n_classes`` is 1 for regression); ``missing`` uint8 (d,),
1 for a column with a NaN somewhere (only those columns are searched for missing values).
"""
CartRules = namedtuple("CartRules", ["criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                                     "min_impurity_decrease", "seed"])
CartRules.__doc__ = """How a tree is grown: ``criterion`` (``MSE``, ``GINI``, ``ENTROPY``), the stopping rules
(``min_samples_split`` already at least ``2 * min_samples_leaf``) and the ``seed`` of the feature order."""
TreeArrays = namedtuple("TreeArrays", ["children_left", "children_right", "feature", "threshold",
                                       "missing_go_to_left"])
TreeArrays.__doc__ = """The node arrays a prediction walks (checked by ``CARTTree._walk_arrays``)."""
_Work = namedtuple("_Work", ["samples", "fv", "swap_buf", "features", "const_features", "state", "sort_stack",
                             "counts_total", "cl", "cr"])
_Work.__doc__ = """Scratch space of one tree (:func:`_new_work`)."""
_Node = namedtuple("_Node", ["start", "end", "n_constants", "impurity", "sum_total", "sq_sum_total"])
_Node.__doc__ = """A node to split: ``samples[start:end]``, the number of features known constant in it, its
impurity and (regression) the sum and sum of squares of its targets."""
_NodeStack = namedtuple("_NodeStack", ["start", "end", "depth", "parent", "is_left", "impurity", "n_constants"])
_NodeStack.__doc__ = """The explicit stack of nodes still to grow, one array per field (:func:`_push`)."""


# --------------------------------------------------------------------------- random numbers
@numba.njit(cache=True)
def _rand_int(low, high, state):
    """Integer in ``[low, high)`` from a 32-bit xorshift generator kept in ``state[0]``."""
    s = state[0]
    if s == 0:
        s = 1
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return low + (s % (RAND_R_MAX + 1)) % (high - low)


# --------------------------------------------------------------------------- sorting
@numba.njit(cache=True, inline="always")
def _swap(v, idx, i, j):
    tv = v[i]
    v[i] = v[j]
    v[j] = tv
    ti = idx[i]
    idx[i] = idx[j]
    idx[j] = ti


@numba.njit(cache=True)
def _insertion_sort(v, idx, lo, n):
    for i in range(lo + 1, lo + n):
        tv = v[i]
        ti = idx[i]
        j = i
        while j > lo and v[j - 1] > tv:
            v[j] = v[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        v[j] = tv
        idx[j] = ti


@numba.njit(cache=True)
def _sift_down(v, idx, lo, start, end):
    root = start
    while True:
        child = 2 * root + 1
        big = root
        if child < end and v[lo + big] < v[lo + child]:
            big = child
        if child + 1 < end and v[lo + big] < v[lo + child + 1]:
            big = child + 1
        if big == root:
            return
        _swap(v, idx, lo + root, lo + big)
        root = big


@numba.njit(cache=True)
def _heapsort(v, idx, lo, n):
    start = (n - 2) // 2
    while True:
        _sift_down(v, idx, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        _swap(v, idx, lo, lo + end)
        _sift_down(v, idx, lo, 0, end)
        end -= 1


@numba.njit(cache=True, inline="always")
def _median3(v, lo, n):
    a = v[lo]
    b = v[lo + n // 2]
    c = v[lo + n - 1]
    if a < b:
        if b < c:
            return b
        elif a < c:
            return c
        return a
    elif b < c:
        if a < c:
            return a
        return c
    return b


@numba.njit(cache=True)
def _sort_3way(v, idx, lo, n, stack):
    """Sort ``v[lo:lo+n]`` in place, permuting ``idx`` alongside.

    Introsort: quicksort with a median-of-3 pivot and a three-way partition
    (``< pivot | == pivot | > pivot``), heapsort once the depth budget
    ``2*floor(log2 n)`` is spent, insertion sort below 16 elements. The left part
    is handled before the right part with the depth budget of its parent, exactly as
    in a recursive implementation; ``stack`` is scratch space of shape ``(m, 3)``.
    """
    if n <= 1:
        return
    top = 0
    stack[0, 0] = lo
    stack[0, 1] = n
    stack[0, 2] = 2 * int(math.log2(n))
    top = 1
    while top > 0:
        top -= 1
        lo = stack[top, 0]
        n = stack[top, 1]
        maxd = stack[top, 2]
        done = False
        while n > 15:
            if maxd <= 0:
                _heapsort(v, idx, lo, n)
                done = True
                break
            maxd -= 1
            pivot = _median3(v, lo, n)
            i = 0
            left = 0
            right = n
            while i < right:
                x = v[lo + i]
                if x < pivot:
                    _swap(v, idx, lo + i, lo + left)
                    i += 1
                    left += 1
                elif x > pivot:
                    right -= 1
                    _swap(v, idx, lo + i, lo + right)
                else:
                    i += 1
            # the left part [lo, lo+left) is sorted next (as a recursive call would)
            # and the right part [lo+right, lo+n) after it with the same budget
            stack[top, 0] = lo + right
            stack[top, 1] = n - right
            stack[top, 2] = maxd
            top += 1
            n = left
        if not done:
            _insertion_sort(v, idx, lo, n)


# --------------------------------------------------------------------------- impurities
@numba.njit(cache=True, inline="always")
def _class_impurity(counts, total, criterion):
    """Gini or entropy (bits) of a node with class ``counts`` summing to ``total``."""
    if criterion == GINI:
        sq = 0.0
        for c in range(counts.shape[0]):
            sq += counts[c] * counts[c]
        return 1.0 - sq / (total * total)
    ent = 0.0
    for c in range(counts.shape[0]):
        p = counts[c]
        if p > 0.0:
            p /= total
            ent -= p * (math.log(p) / _LN2)
    return ent


@numba.njit(cache=True)
def _class_counts(codes, n_classes):
    counts = np.zeros(n_classes)
    for i in range(codes.shape[0]):
        counts[codes[i]] += 1.0
    return counts


@numba.njit(cache=True)
def _variance(y):
    """Mean squared deviation from the mean, two-pass (numerically stable)."""
    n = y.shape[0]
    s = 0.0
    for i in range(n):
        s += y[i]
    m = s / n
    ss = 0.0
    for i in range(n):
        d = y[i] - m
        ss += d * d
    return ss / n


# --------------------------------------------------------------------------- one-feature scan
@numba.njit(cache=True)
def _scan_sorted(fv, yv, codes, n_classes, criterion, min_samples_leaf):
    """Impurity decrease at every admissible threshold of one sorted feature.

    ``fv`` (float32) is sorted increasingly; ``yv`` (regression) or ``codes``
    (classification) are aligned with it. Returns ``(thresholds, decrease, n_left)``
    for the candidate positions that leave at least ``min_samples_leaf`` samples on
    each side. ``decrease`` is ``I(P) - N_L/N I(L) - N_R/N I(R)``.
    """
    n = fv.shape[0]
    thr = np.empty(max(n - 1, 0))
    dec = np.empty(max(n - 1, 0))
    nl_out = np.empty(max(n - 1, 0), dtype=np.int64)
    m = 0
    if n < 2:
        return thr[:0], dec[:0], nl_out[:0]
    nf = float(n)
    if criterion == MSE:
        mean = 0.0
        for i in range(n):
            mean += yv[i]
        mean /= nf
        s_tot = 0.0
        for i in range(n):
            s_tot += yv[i] - mean
        s_left = 0.0
        for p in range(1, n):
            s_left += yv[p - 1] - mean
            if fv[p] <= fv[p - 1] + FEATURE_THRESHOLD:
                continue
            if p < min_samples_leaf or n - p < min_samples_leaf:
                continue
            s_right = s_tot - s_left
            nl = float(p)
            nr = nf - nl
            # N * decrease = S_L^2/N_L + S_R^2/N_R - S^2/N  (y centred at the node mean)
            dec[m] = (s_left * s_left / nl + s_right * s_right / nr - s_tot * s_tot / nf) / nf
            thr[m] = fv[p - 1] / 2.0 + fv[p] / 2.0
            nl_out[m] = p
            m += 1
    else:
        total = _class_counts(codes, n_classes)
        parent = _class_impurity(total, nf, criterion)
        left = np.zeros(n_classes)
        right = np.empty(n_classes)
        for p in range(1, n):
            left[codes[p - 1]] += 1.0
            if fv[p] <= fv[p - 1] + FEATURE_THRESHOLD:
                continue
            if p < min_samples_leaf or n - p < min_samples_leaf:
                continue
            for c in range(n_classes):
                right[c] = total[c] - left[c]
            nl = float(p)
            nr = nf - nl
            dec[m] = parent - nl / nf * _class_impurity(left, nl, criterion) - nr / nf * _class_impurity(
                right, nr, criterion
            )
            thr[m] = fv[p - 1] / 2.0 + fv[p] / 2.0
            nl_out[m] = p
            m += 1
    return thr[:m], dec[:m], nl_out[:m]


@numba.njit(cache=True)
def _best_split(data, criterion, min_samples_leaf):
    """Best (feature, threshold, decrease, n_left) over all columns of ``data.X`` (a :class:`CartData`).

    Features are visited in index order and a candidate replaces the incumbent only
    if its decrease is strictly larger, so ties go to the lowest feature index and,
    within a feature, to the smallest threshold. ``feature = -1`` if no split exists.
    ``data.missing`` is not read: the caller has refused NaN.
    """
    X, y, codes, n_classes = data.X, data.y, data.codes, data.n_classes
    n, d = X.shape
    best_f = -1
    best_t = np.nan
    best_d = -np.inf
    best_nl = 0
    for f in range(d):
        order = np.argsort(X[:, f], kind="mergesort")
        fv = X[:, f][order]
        yv = y[order]
        cv = codes[order]
        thr, dec, nl = _scan_sorted(fv, yv, cv, n_classes, criterion, min_samples_leaf)
        for k in range(thr.shape[0]):
            if dec[k] > best_d:
                best_d = dec[k]
                best_f = f
                best_t = thr[k]
                best_nl = nl[k]
    if best_f == -1:
        best_d = 0.0
    return best_f, best_t, best_d, best_nl


# --------------------------------------------------------------------------- missing values
@numba.njit(cache=True)
def _gather_feature(X, samples, fv, feat, start, end, may_have_missing):
    """Copy column ``feat`` of the node's samples into ``fv``; return the number of NaN.

    When the column may hold NaN, the node's missing samples are first moved to the end
    of ``samples[start:end]`` with the swaps scikit-learn's partitioner makes (so that the
    sort that follows sees the samples in the same order); ``fv`` is filled for the
    non-missing ones only.
    """
    n_missing = 0
    if may_have_missing:
        i = start
        cur_end = end - 1
        while i <= cur_end:
            if math.isnan(X[samples[cur_end], feat]):
                n_missing += 1
                cur_end -= 1
                continue
            if math.isnan(X[samples[i], feat]):
                tmp = samples[i]
                samples[i] = samples[cur_end]
                samples[cur_end] = tmp
                n_missing += 1
                cur_end -= 1
            fv[i] = X[samples[i], feat]
            i += 1
    else:
        for p in range(start, end):
            fv[p] = X[samples[p], feat]
    return n_missing


@numba.njit(cache=True)
def _shift_missing_left(samples, fv, swap_buf, start, end_nm, n_missing):
    """Swap the blocks ``[start, end_nm)`` (non-missing) and ``[end_nm, end_nm+n_missing)``
    (missing) of ``samples`` and ``fv``, keeping the order inside each block."""
    n_nm = end_nm - start
    for q in range(n_missing):
        swap_buf[q] = samples[end_nm + q]
    for q in range(n_nm - 1, -1, -1):  # from the back: the two ranges overlap
        samples[start + n_missing + q] = samples[start + q]
        fv[start + n_missing + q] = fv[start + q]
    for q in range(n_missing):
        samples[start + q] = swap_buf[q]
        fv[start + q] = np.nan  # never read: the scan starts after the missing block


# --------------------------------------------------------------------------- tree builder
@numba.njit(cache=True, inline="always")
def _goes_left(xv, threshold, missing_go_to_left):
    """A sample goes left iff ``x <= threshold``, or ``x`` is NaN and the missing go left."""
    return xv <= threshold or (missing_go_to_left and math.isnan(xv))


@numba.njit(cache=True)
def _node_split(data, rules, work, node):
    """Best split of the node ``work.samples[node.start:node.end]``; partitions the samples if one is found.

    ``data`` is a :class:`CartData`, ``rules`` a :class:`CartRules`, ``work`` the tree's
    :class:`_Work` space and ``node`` a :class:`_Node`. ``data.missing[f]`` is true when
    column ``f`` holds a NaN somewhere in the training set; only those columns are searched
    for missing values (scikit-learn's rule). For such a column the node's missing samples
    are moved to the end, the others sorted, and the thresholds are scanned twice: with the
    missing samples going right (which includes the split "all non-missing left, missing
    right", threshold ``+inf``) and with them going left.

    Returns ``(pos, feature, threshold, impurity_left, impurity_right, improvement,
    n_constant_features, missing_go_to_left)``; ``pos == end`` means no admissible split.
    """
    X, y, codes, n_classes, missing_mask = data.X, data.y, data.codes, data.n_classes, data.missing
    criterion, min_samples_leaf = rules.criterion, rules.min_samples_leaf
    samples, fv, swap_buf, features, const_features = (work.samples, work.fv, work.swap_buf, work.features,
                                                       work.const_features)
    state, sort_stack, counts_total, cl, cr = work.state, work.sort_stack, work.counts_total, work.cl, work.cr
    start, end, n_known_constants, impurity = node.start, node.end, node.n_constants, node.impurity
    sum_total, sq_sum_total = node.sum_total, node.sq_sum_total
    n_total_samples = float(X.shape[0])
    n_features = X.shape[1]
    max_features = n_features
    wn = float(end - start)
    f_i = n_features
    n_visited = 0
    n_found_constants = 0
    n_drawn_constants = 0
    n_total_constants = n_known_constants

    best_pos = end
    best_feature = 0
    best_threshold = 0.0
    best_proxy = -np.inf
    best_mgl = False

    while f_i > n_total_constants and (
        n_visited < max_features or n_visited <= n_found_constants + n_drawn_constants
    ):
        n_visited += 1
        f_j = _rand_int(n_drawn_constants, f_i - n_found_constants, state)
        if f_j < n_known_constants:
            tmp = features[n_drawn_constants]
            features[n_drawn_constants] = features[f_j]
            features[f_j] = tmp
            n_drawn_constants += 1
            continue
        f_j += n_found_constants
        feat = features[f_j]
        n_missing = _gather_feature(X, samples, fv, feat, start, end, missing_mask[feat] != 0)
        end_nm = end - n_missing
        _sort_3way(fv, samples, start, end_nm - start, sort_stack)

        # all values missing, or no missing value and the rest constant: not splittable
        if end_nm == start or (n_missing == 0 and fv[end_nm - 1] <= fv[start] + FEATURE_THRESHOLD):
            tmp = features[f_j]
            features[f_j] = features[n_total_constants]
            features[n_total_constants] = tmp
            n_found_constants += 1
            n_total_constants += 1
            continue

        f_i -= 1
        tmp = features[f_i]
        features[f_i] = features[f_j]
        features[f_j] = tmp

        n_searches = 2 if n_missing > 0 else 1
        for search in range(n_searches):
            mgl = search == 1
            if mgl:
                # second pass: the missing block moves to the front, both blocks keep their order
                _shift_missing_left(samples, fv, swap_buf, start, end_nm, n_missing)
                last = end
                p = start + n_missing  # never send only the missing samples left
            else:
                # with missing values, the last candidate is "non-missing left, missing right"
                last = end_nm
                p = start
            # sweep the sorted feature; the running sums follow the update rule of the
            # criterion (add the new samples to the left, or rebuild from the right end
            # when that is shorter) so that rounding matches scikit-learn's
            pos = start
            wl = 0.0
            s_left = 0.0
            if criterion != MSE:
                for c in range(n_classes):
                    cl[c] = 0.0
            while p < last:
                p += 1
                while p < last and fv[p] <= fv[p - 1] + FEATURE_THRESHOLD:
                    p += 1
                if p >= end:
                    break
                if p - start < min_samples_leaf or end - p < min_samples_leaf:
                    continue
                if criterion == MSE:
                    if p - pos <= end - p:
                        for q in range(pos, p):
                            s_left += y[samples[q]]
                            wl += 1.0
                    else:
                        s_left = sum_total
                        wl = wn
                        for q in range(end - 1, p - 1, -1):
                            s_left -= y[samples[q]]
                            wl -= 1.0
                    pos = p
                    wr = wn - wl
                    s_right = sum_total - s_left
                    proxy = s_left * s_left / wl + s_right * s_right / wr
                else:
                    for q in range(pos, p):
                        cl[codes[samples[q]]] += 1.0
                        wl += 1.0
                    pos = p
                    wr = wn - wl
                    for c in range(n_classes):
                        cr[c] = counts_total[c] - cl[c]
                    proxy = -wr * _class_impurity(cr, wr, criterion) - wl * _class_impurity(cl, wl, criterion)
                if proxy > best_proxy:
                    best_proxy = proxy
                    best_pos = p
                    best_feature = feat
                    if p == end_nm and not mgl:
                        best_threshold = np.inf  # NaN <= inf is false: the missing go right
                    else:
                        best_threshold = fv[p - 1] / 2.0 + fv[p] / 2.0
                    if n_missing == 0:
                        # no missing value here: at predict time NaN follows the larger child
                        best_mgl = (p - start) > (end - p)
                    else:
                        best_mgl = mgl

    imp_left = np.inf
    imp_right = np.inf
    improvement = -np.inf
    if best_pos < end:
        # two-pointer partition of the samples on the chosen split
        a = start
        b = end
        while a < b:
            if _goes_left(X[samples[a], best_feature], best_threshold, best_mgl):
                a += 1
            else:
                b -= 1
                tmp = samples[a]
                samples[a] = samples[b]
                samples[b] = tmp
        wl = float(best_pos - start)
        wr = wn - wl
        if criterion == MSE:
            if best_pos - start <= end - best_pos:
                s_left = 0.0
                for q in range(start, best_pos):
                    s_left += y[samples[q]]
            else:
                s_left = sum_total
                for q in range(end - 1, best_pos - 1, -1):
                    s_left -= y[samples[q]]
            s_right = sum_total - s_left
            sq_left = 0.0
            for q in range(start, best_pos):
                yq = y[samples[q]]
                sq_left += yq * yq
            sq_right = sq_sum_total - sq_left
            imp_left = sq_left / wl - (s_left / wl) ** 2
            imp_right = sq_right / wr - (s_right / wr) ** 2
        else:
            for c in range(n_classes):
                cl[c] = 0.0
            for q in range(start, best_pos):
                cl[codes[samples[q]]] += 1.0
            for c in range(n_classes):
                cr[c] = counts_total[c] - cl[c]
            imp_left = _class_impurity(cl, wl, criterion)
            imp_right = _class_impurity(cr, wr, criterion)
        improvement = (wn / n_total_samples) * (impurity - wr / wn * imp_right - wl / wn * imp_left)

    # keep the known constant features in their original order for the descendants,
    # and remember the newly found ones
    for k in range(n_known_constants):
        features[k] = const_features[k]
    for k in range(n_known_constants, n_known_constants + n_found_constants):
        const_features[k] = features[k]
    return (best_pos, best_feature, best_threshold, imp_left, imp_right, improvement, n_total_constants,
            best_mgl)


@numba.njit(cache=True, inline="always")
def _push(stack, top, start, end, depth, parent, is_left, impurity, n_constants):
    """Put a node on the :class:`_NodeStack` at ``top``; return the new top."""
    stack.start[top] = start
    stack.end[top] = end
    stack.depth[top] = depth
    stack.parent[top] = parent
    stack.is_left[top] = is_left
    stack.impurity[top] = impurity
    stack.n_constants[top] = n_constants
    return top + 1


@numba.njit(cache=True)
def _new_work(n, d, n_classes, seed):
    """The scratch space (:class:`_Work`) of a tree on ``n`` samples, ``d`` features, ``n_classes`` classes."""
    m = 2 * int(math.log2(max(n, 2))) + 2
    k = max(n_classes, 1)
    # samples, fv, swap_buf, features, const_features, state, sort_stack, counts_total, cl, cr
    return _Work(np.arange(n), np.empty(n, dtype=np.float32), np.empty(n, dtype=np.int64), np.arange(d),
                 np.zeros(d, dtype=np.int64), np.array([seed], dtype=np.int64),
                 np.empty((m * m + 16, 3), dtype=np.int64), np.zeros(k), np.zeros(k), np.zeros(k))


@numba.njit(cache=True)
def _build_tree(data, rules):
    """Grow a CART tree depth first with an explicit stack.

    ``data`` is a :class:`CartData`, ``rules`` a :class:`CartRules`. Nodes are numbered in
    depth-first preorder, left child first. Returns the node arrays trimmed to the node count
    (children_left, children_right, feature, threshold, value, impurity, n_node_samples), the
    depth of the deepest leaf and ``missing_go_to_left`` (uint8, 0 at leaves).
    """
    X, y, codes, criterion = data.X, data.y, data.codes, rules.criterion
    n, d = X.shape
    K = data.n_classes if criterion != MSE else 1
    cap = 2 * n - 1
    children_left = np.full(cap, -1, dtype=np.int64)
    children_right = np.full(cap, -1, dtype=np.int64)
    feature = np.full(cap, -2, dtype=np.int64)
    threshold = np.full(cap, -2.0)
    value = np.zeros((cap, K))
    impurity = np.zeros(cap)
    n_node_samples = np.zeros(cap, dtype=np.int64)
    missing_go_to_left = np.zeros(cap, dtype=np.uint8)

    work = _new_work(n, d, K, rules.seed)
    samples, counts_total = work.samples, work.counts_total
    split_data = CartData(X, y, codes, K, data.missing)

    # explicit stack of nodes still to process
    stack = _NodeStack(
        np.empty(n + 1, dtype=np.int64), np.empty(n + 1, dtype=np.int64), np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64), np.empty(n + 1, dtype=np.bool_), np.empty(n + 1),
        np.empty(n + 1, dtype=np.int64),
    )
    top = _push(stack, 0, 0, n, 0, -1, False, np.inf, 0)

    node_count = 0
    max_depth_seen = 0
    first = True
    while top > 0:
        top -= 1
        start = stack.start[top]
        end = stack.end[top]
        depth = stack.depth[top]
        parent = stack.parent[top]
        is_left = stack.is_left[top]
        imp = stack.impurity[top]
        nconst = stack.n_constants[top]
        nn = end - start
        wn = float(nn)

        # node statistics, accumulated in the current sample order
        sum_total = 0.0
        sq_sum_total = 0.0
        if criterion == MSE:
            for p in range(start, end):
                yi = y[samples[p]]
                sum_total += yi
                sq_sum_total += yi * yi
        else:
            for c in range(K):
                counts_total[c] = 0.0
            for p in range(start, end):
                counts_total[codes[samples[p]]] += 1.0

        is_leaf = depth >= rules.max_depth or nn < rules.min_samples_split or nn < 2 * rules.min_samples_leaf
        if first:
            if criterion == MSE:
                imp = sq_sum_total / wn - (sum_total / wn) ** 2
            else:
                imp = _class_impurity(counts_total, wn, criterion)
            first = False
        is_leaf = is_leaf or imp <= EPSILON

        pos = end
        feat = 0
        thr = 0.0
        imp_l = np.inf
        imp_r = np.inf
        new_nconst = nconst
        improvement = -np.inf
        mgl = False
        if not is_leaf:
            pos, feat, thr, imp_l, imp_r, improvement, new_nconst, mgl = _node_split(
                split_data, rules, work, _Node(start, end, nconst, imp, sum_total, sq_sum_total)
            )
            is_leaf = pos >= end or improvement + EPSILON < rules.min_impurity_decrease

        node = node_count
        node_count += 1
        if parent >= 0:
            if is_left:
                children_left[parent] = node
            else:
                children_right[parent] = node
        if not is_leaf:
            feature[node] = feat
            threshold[node] = thr
            missing_go_to_left[node] = 1 if mgl else 0
        impurity[node] = imp
        n_node_samples[node] = nn
        if criterion == MSE:
            value[node, 0] = sum_total / wn
        else:
            for c in range(K):
                value[node, c] = counts_total[c] / wn
        if depth > max_depth_seen:
            max_depth_seen = depth

        if not is_leaf:
            # right child first so that the left child is popped (numbered) first
            top = _push(stack, top, pos, end, depth + 1, node, False, imp_r, new_nconst)
            top = _push(stack, top, start, pos, depth + 1, node, True, imp_l, new_nconst)

    return (
        children_left[:node_count].copy(),
        children_right[:node_count].copy(),
        feature[:node_count].copy(),
        threshold[:node_count].copy(),
        value[:node_count].copy(),
        impurity[:node_count].copy(),
        n_node_samples[:node_count].copy(),
        max_depth_seen,
        missing_go_to_left[:node_count].copy(),
    )


# --------------------------------------------------------------------------- prediction
@numba.njit(cache=True, inline="always")
def _child(tree, node, row):
    """The child of split ``node`` of the :class:`TreeArrays` ``tree`` that the sample ``row`` goes to."""
    if _goes_left(row[tree.feature[node]], tree.threshold[node], tree.missing_go_to_left[node] != 0):
        return tree.children_left[node]
    return tree.children_right[node]


@numba.njit(cache=True)
def _apply(X, tree):
    """Leaf index of every row of float32 ``X`` in the :class:`TreeArrays` ``tree``.

    A row goes left iff ``x[feature] <= threshold``, or ``x[feature]`` is NaN and
    ``missing_go_to_left`` is set at the node.
    """
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while tree.children_left[node] != -1:
            node = _child(tree, node, X[i])
        out[i] = node
    return out


@numba.njit(cache=True)
def _decision_path(X, tree, max_depth):
    """CSR pieces (indptr, indices) of the root-to-leaf node path of every row (walked as :func:`_apply`)."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * (max_depth + 1), dtype=np.int64)
    k = 0
    for i in range(n):
        node = 0
        indices[k] = 0
        k += 1
        while tree.children_left[node] != -1:
            node = _child(tree, node, X[i])
            indices[k] = node
            k += 1
        indptr[i + 1] = k
    return indptr, indices[:k].copy()
