"""Checkable exercises of chapter 4, "Interpreting tree ensembles".

The reference answers are computed here when a student first checks (numpy and, inside the functions only,
pandas, scipy, scikit-learn, shap, catboost and the MPEA data of ``tabular_trees.datasets.load_mpea``), with the
chapter's splits and seeds. Every reference takes at most a few seconds.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ._core import exact_integers, numeric_exercise

_DESCRIPTORS = ["S_mix", "delta", "VEC", "H_mix", "Omega", "delta_chi", "T_m"]
_FEATURES = _DESCRIPTORS + ["Al"]

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "4.1": ("check the weights |S|! (p - |S| - 1)! / p!: 1/3 for the empty and the full S, "
            "1/6 for each S of size one.",
            "the three values must add up to v({1, 2, 3}) - v(empty) = 60 (efficiency)."),
    "4.2": ("phi_j = w_j (x_j - mean of the background's column j), exactly.",
            "a feature's SHAP value measures its effect relative to the background mean, not relative to zero; "
            "the intercept gets no share."),
    "4.3": ("rank among all 33 columns with rank(ascending=False), 1 = most important.",
            "use the chapter's seed-0 noise column (plant_noise(X_full, 0)), the chapter's train_idx and "
            "RandomForestRegressor(n_estimators=200, min_samples_leaf=20, random_state=0)."),
    "4.4": ("use 40 grid values of VEC from its minimum to its maximum over the training alloys "
            "and the 95th percentile of the nearest-other-alloy distances.",
            "vary VEC on the grid and keep each training alloy's own T_m, "
            "in the standardised (VEC, T_m) plane of the training alloys."),
    "4.5": ("keep more digits; use path-dependent shap.TreeExplainer(forest) on the chapter's held-out alloys "
            "for both forests.",
            "divide mean |SHAP| of VEC with the copy present by mean |SHAP| of VEC without it "
            "(forests with n_estimators=200, min_samples_leaf=2, random_state=0)."),
    "4.6": ("the base value is v(empty): every feature taken from the background, "
            "averaged over the 40 background alloys.",
            "use interventional_shapley(cat_model.predict, rows, background) with the chapter's "
            "40-alloy background; its second output is the base value."),
}


@functools.lru_cache(maxsize=1)
def _alloys():
    """The chapter's table and split: ``(X_full without processing, y, train_idx, test_idx)``."""
    from sklearn.model_selection import GroupShuffleSplit

    from ..datasets import load_mpea

    X_full, y, groups = load_mpea(target="hardness", return_groups=True)
    X_full = X_full.drop(columns="processing")
    train_idx, test_idx = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X_full, y, groups))
    return X_full, y, train_idx, test_idx


# 4.1 ------------------------------------------------------------------------------------------------------
_GAME = {(): 0.0, (1,): 10.0, (2,): 20.0, (3,): 0.0, (1, 2): 40.0, (1, 3): 10.0, (2, 3): 30.0, (1, 2, 3): 60.0}


# Exact fractions of small integers: rtol 1e-6 accepts any rounding to six digits. "Close" within 10 %: a
# slip in one weight. Equal weights for all coalitions, or the marginal contributions alone, are wrong.
@numeric_exercise("4.1", "understand", "Shapley values of a three-player game",
                  expects="three numbers [phi_1, phi_2, phi_3]", rtol=1e-6, close_rtol=0.1, hints=_HINTS)
def _shapley_of_game():
    players = (1, 2, 3)
    phi = []
    for j in players:
        others = [k for k in players if k != j]
        total = 0.0
        for r in range(len(others) + 1):
            for S in itertools.combinations(others, r):
                weight = math.factorial(len(S)) * math.factorial(len(players) - len(S) - 1) / math.factorial(3)
                total += weight * (_GAME[tuple(sorted(S + (j,)))] - _GAME[S])
        phi.append(total)
    return np.array(phi)


# 4.2 ------------------------------------------------------------------------------------------------------
# Exact small numbers (rtol 1e-6). "Close" within 10 %. Forgetting to centre at the background mean gives
# [6, -2]: wrong.
@numeric_exercise("4.2", "understand", "interventional SHAP values of a linear model",
                  expects="two numbers [phi_1, phi_2]", rtol=1e-6, close_rtol=0.1, hints=_HINTS)
def _linear_shapley():
    w, x = np.array([3.0, -2.0]), np.array([2.0, 1.0])
    background_mean = np.array([[0.0, 2.0], [2.0, 6.0]]).mean(axis=0)
    return w * (x - background_mean)


# 4.3 ------------------------------------------------------------------------------------------------------
# An integer rank (1 = largest MDI): right only when exact; one place off is "close". The
# forest is deterministic (random_state=0, one thread); the neighbouring features differ by 5 % in MDI.
@numeric_exercise("4.3", "apply", "MDI rank of the planted noise with min_samples_leaf=20",
                  expects="an integer (a rank, 1 = largest MDI)", **exact_integers(close_by=1), hints=_HINTS)
def _noise_rank_large_leaves():
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor

    X_full, y, train_idx, _ = _alloys()
    Xn = X_full.copy()
    Xn["noise"] = np.random.default_rng(0).normal(size=len(X_full))
    forest = RandomForestRegressor(n_estimators=200, min_samples_leaf=20, random_state=0, n_jobs=1)
    forest.fit(Xn.iloc[train_idx], y.iloc[train_idx])
    return float(pd.Series(forest.feature_importances_, Xn.columns).rank(ascending=False)["noise"])


# 4.4 ------------------------------------------------------------------------------------------------------
# A ratio of two counts; the distances are float64 and the threshold a quantile, so only points within
# rounding of the threshold could flip (rtol 1e-4). Within 10 % is "close" (another grid size or quantile).
@numeric_exercise("4.4", "apply", "share of off-support hybrid points behind PD(VEC) in the (VEC, T_m) plane",
                  expects="a number between 0 and 1", rtol=1e-4, close_rtol=0.1, hints=_HINTS)
def _off_support_vec_tm():
    from scipy.spatial import cKDTree

    X_full, _, train_idx, _ = _alloys()
    plane = X_full.iloc[train_idx][["VEC", "T_m"]].to_numpy()
    mu, sd = plane.mean(axis=0), plane.std(axis=0)
    kd = cKDTree((plane - mu) / sd)
    threshold = np.quantile(kd.query((plane - mu) / sd, k=2)[0][:, 1], 0.95)
    grid = np.linspace(plane[:, 0].min(), plane[:, 0].max(), 40)
    hyb = np.column_stack([np.repeat(grid, len(plane)), np.tile(plane[:, 1], len(grid))])
    return float((kd.query((hyb - mu) / sd, k=1)[0] > threshold).mean())


# 4.5 ------------------------------------------------------------------------------------------------------
# A ratio of two exact TreeSHAP means of deterministic forests (random_state=0): another CPU changes only
# the last bits (rtol 1e-4). Within 5 % is "close". The share of the pair (VEC + copy, about 1) is wrong.
@numeric_exercise("4.5", "extend", "share of VEC's SHAP importance that VEC keeps next to a near-copy",
                  expects="a number (a ratio of two mean |SHAP| values)", rtol=1e-4, close_rtol=0.05, hints=_HINTS)
def _vec_share_with_copy():
    import warnings

    from sklearn.ensemble import RandomForestRegressor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import shap

    X_full, y, train_idx, test_idx = _alloys()
    X = X_full[_FEATURES].copy()
    X["VEC_copy"] = X["VEC"] + np.random.default_rng(0).normal(scale=0.01, size=len(X))
    mean_abs = []
    for cols in (_FEATURES, _FEATURES + ["VEC_copy"]):
        forest = RandomForestRegressor(n_estimators=200, min_samples_leaf=2, random_state=0, n_jobs=1)
        forest.fit(X.iloc[train_idx][cols], y.iloc[train_idx])
        sv = shap.TreeExplainer(forest).shap_values(X.iloc[test_idx][cols])
        mean_abs.append(np.abs(sv[:, cols.index("VEC")]).mean())
    return float(mean_abs[1] / mean_abs[0])


# 4.6 ------------------------------------------------------------------------------------------------------
# A mean of 40 predictions of a deterministic CatBoost model (seed 0, one thread): another CPU changes only
# the last bits (rtol 1e-4). Within 2 % (about 10 HV) is "close". CatBoost's bias alone (about 4 % higher) or
# the mean training hardness are wrong.
@numeric_exercise("4.6", "extend", "brute-force base value of the CatBoost model",
                  expects="a hardness in HV", rtol=1e-4, close_rtol=0.02, hints=_HINTS)
def _catboost_base_value():
    import catboost as cb

    X_full, y, train_idx, _ = _alloys()
    X_train = X_full[_FEATURES].iloc[train_idx]
    model = cb.CatBoostRegressor(iterations=400, depth=4, learning_rate=0.05, random_seed=0, verbose=0,
                                 thread_count=1, allow_writing_files=False).fit(X_train, y.iloc[train_idx])
    background = X_train.sample(n=40, random_state=0)
    return float(model.predict(background).mean())


