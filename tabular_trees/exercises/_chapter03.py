"""Checkable exercises of chapter 3, "Boosting".

The reference answers are computed here when a student first checks (numpy and, inside the functions only,
pandas, the library's own booster and histogram helpers, and the MPEA data of
``tabular_trees.datasets.load_mpea``). Every reference takes well under a few seconds.
"""

from __future__ import annotations

import numpy as np

from ._core import exact_integers, numeric_exercise


# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "3.1": ("use w* = -G / (H + lambda) with lambda = 1, g = mu - y and h = mu, all at mu = e^0.",
            "first derive g and h of L = e^F - yF; at F = 0 every row has mu = 1."),
    "3.2": ("keep more digits: the leaf value is n/(n + 5) times the leaf's mean residual.",
            "find the leaf with the fewest training rows (tree.apply) and read tree.value of it; "
            "it is the mean residual shrunk by n/(n + lambda)."),
    "3.3": ("B is sampled from the (1 - a)N small-gradient rows only, not from all N rows.",
            "each small-gradient row lands in B with probability bN / ((1 - a)N); the weight "
            "undoes that probability."),
    "3.4": ("keep more digits.",
            "encode the 800 training rows by the mean target of their own level (10 levels, "
            "np.random.default_rng(5).integers(0, 10, size=1200)) and correlate with the training noise y - f(x)."),
    "3.5": ("keep more digits and put lambda = 1 in the denominator: w = -G / (H + 1).",
            "answer [left, right] for the side with codes <= the best bin and the other side; "
            "g = mean - y, so the harder side gets a positive weight."),
    "3.6": ("the budget bounds the total conflicts of a bundle (<= 10), counted over all pairs of features in it, "
            "and the features are visited by decreasing degree.",
            "call the chapter's greedy_bundles with max_conflicts=10 on the same 31 sparse columns; "
            "more tolerance can only merge bundles."),
}


# 3.1 ------------------------------------------------------------------------------------------------------
# A closed-form number: any correct computation gives it up to rounding (rtol 1e-6). Forgetting lambda
# (2.0) or taking the exact log-scale optimum log(3) (1.10) lands within 35 % and is "close".
@numeric_exercise("3.1", "understand", "XGBoost leaf weight of the Poisson loss",
                  expects="a number (the leaf weight, on the log scale of the mean)",
                  rtol=1e-6, close_rtol=0.35, hints=_HINTS)
def _poisson_leaf_weight():
    y = np.array([0.0, 3.0, 6.0])
    mu = np.exp(np.zeros(3))                       # current prediction F = 0, so mu = e^F = 1
    G, H = np.sum(mu - y), np.sum(mu)              # g = mu - y, h = mu
    return float(-G / (H + 1.0))                   # lambda = 1


# 3.2 ------------------------------------------------------------------------------------------------------
# The tree is exact (one leaf holds a single row; float64 sums): another correct computation differs in the
# last bits only (rtol 1e-6). Within 5 % is "close" (a rounded answer). The unshrunk mean residual of that
# leaf is six times larger: wrong.
@numeric_exercise("3.2", "apply", "value of the smallest leaf of a depth-3 tree with lambda = 5",
                  expects="a number (a leaf value, in units of y)", rtol=1e-6, close_rtol=0.05, hints=_HINTS)
def _smallest_leaf_value():
    from ..boosting import GradientBoostingRegressor
    from ..datasets import make_sine

    X_tr, y_tr = make_sine(70, noise=0.3, design="grid", random_state=1)
    model = GradientBoostingRegressor(n_estimators=1, learning_rate=1.0, max_depth=3, reg_lambda=5.0).fit(X_tr, y_tr)
    tree = model.trees_[0][0]
    leaf_id = tree.apply(np.ascontiguousarray(X_tr, dtype=np.float64))
    leaves, counts = np.unique(leaf_id, return_counts=True)
    return float(tree.value[leaves[np.argmin(counts)]])


# 3.3 ------------------------------------------------------------------------------------------------------
# (1 - a) / b for a = 0.2, b = 0.1: exact. 1/b = 10 (a common slip) is 25 % off and "close".
@numeric_exercise("3.3", "understand", "GOSS weight of the sampled small-gradient rows",
                  expects="a number (a multiplicative weight)", rtol=1e-9, close_rtol=0.3, hints=_HINTS)
def _goss_weight():
    return (1 - 0.2) / 0.1


# 3.4 ------------------------------------------------------------------------------------------------------
# A correlation of fixed numbers (means of a pandas groupby): any correct computation agrees to ~1e-12
# (rtol 1e-6). It is small (about 0.05), so "close" is an absolute 0.01: a rounded answer. The 400-level
# value of the chapter (about 0.25) is wrong.
@numeric_exercise("3.4", "extend", "leak of a naive target encoding with 10 levels",
                  expects="a number (a correlation)",
                  rtol=1e-6, close_rtol=0.05, atol=1e-6, close_atol=0.01, hints=_HINTS)
def _ten_level_leak():
    import pandas as pd

    from ..datasets import make_sine, sine_function

    X_s, y_s = make_sine(1200, noise=0.3, random_state=3)
    noise = y_s - sine_function(X_s[:, 0])
    batch10 = np.random.default_rng(5).integers(0, 10, size=1200)
    tr = np.arange(1200) < 800
    encoding = pd.Series(y_s[tr]).groupby(batch10[tr]).transform("mean").to_numpy()
    return float(np.corrcoef(encoding, noise[tr])[0, 1])


# 3.5 ------------------------------------------------------------------------------------------------------
# Sums of a few hundred gradients: summation order changes only the last bits (rtol 1e-6). Forgetting
# lambda changes the weights by 0.3 % and 1 %, a rounded answer by less: within 3 % is "close". A sign error
# or the other order is wrong.
@numeric_exercise("3.5", "apply", "leaf weights of the best histogram root split on MPEA hardness",
                  expects="two numbers [w_left, w_right] in HV", rtol=1e-6, close_rtol=0.03, hints=_HINTS)
def _mpea_root_leaf_weights():
    from ..boosting import SquaredError, bin_data, build_histogram, compute_bin_edges, leaf_weight, split_gain
    from ..datasets import load_mpea

    X, y = load_mpea(target="hardness")
    A = X[[c for c in X.columns if c != "processing"]].to_numpy()
    y = y.to_numpy()
    edges = compute_bin_edges(A, max_bins=8)
    codes = bin_data(A, edges)
    g, h = SquaredError().gradient_hessian(y, np.full(len(y), y.mean()))
    hist = build_histogram(codes, g, h, n_bins=int(codes.max()) + 1)
    G, H = hist[:, :, 0], hist[:, :, 1]
    GL, HL = np.cumsum(G, axis=1)[:, :-1], np.cumsum(H, axis=1)[:, :-1]
    GR, HR = G.sum(axis=1, keepdims=True) - GL, H.sum(axis=1, keepdims=True) - HL
    gain = np.where((HL > 0) & (HR > 0), split_gain(GL, HL, GR, HR, reg_lambda=1.0), -np.inf)
    j, b = np.unravel_index(np.argmax(gain), gain.shape)
    return np.array([leaf_weight(GL[j, b], HL[j, b], reg_lambda=1.0), leaf_weight(GR[j, b], HR[j, b], reg_lambda=1.0)])


# 3.6 ------------------------------------------------------------------------------------------------------
# An integer: right only when exact; one bundle off is "close".
@numeric_exercise("3.6", "extend", "number of EFB bundles of the sparse MPEA features with a conflict budget of 10",
                  expects="an integer (a number of bundles)", **exact_integers(close_by=1), hints=_HINTS)
def _mpea_bundles_k10():
    import pandas as pd

    from ..datasets import load_mpea

    X, _ = load_mpea(target="hardness")
    elements = [c for c in X.columns if c != "processing" and len(c) <= 2]
    F = pd.concat([pd.get_dummies(X["processing"], prefix="proc").astype(float), X[elements]], axis=1).to_numpy()
    nz = (F != 0).astype(np.int64)
    conflicts = nz.T @ nz
    np.fill_diagonal(conflicts, 0)
    bundles, used = [], []
    for j in np.argsort(-(conflicts > 0).sum(axis=1), kind="stable"):
        for k, bundle in enumerate(bundles):
            extra = conflicts[j, bundle].sum()
            if used[k] + extra <= 10:
                bundle.append(int(j))
                used[k] += extra
                break
        else:
            bundles.append([int(j)])
            used.append(0)
    return len(bundles)


