"""Checkable tasks of chapter 7, the lab "random forest and XGBoost on alloy hardness".

Every reference answer is recomputed here, when a student first checks, from the same data, splitter, seeds
and settings that the lab's visible cells fix (``load_mpea(target="hardness")``, processing one-hot encoded,
``GroupKFold(n_splits=5)`` by composition). Nothing in this file is the answer in clear: numbers are
computed by the functions below, the word answer is stored as a salted digest.

Only numpy, scipy, scikit-learn and numba may be imported at module level; pandas, xgboost and the data loader
are imported inside the reference functions. The data and folds are built once per process (``_data``), and
each reference takes a few seconds at most on one core.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._core import Exercise, _as_numbers, numeric_exercise, register, word_exercise
from ._references import mean_fold_rmse, rmse

# The settings the lab fixes in its visible cells (keep them identical to book/07_alloy_lab.ipynb).
N_SPLITS = 5
RIDGE_ALPHA = 1.0
RF_PARAMS = {"n_estimators": 300, "max_features": 1 / 3, "random_state": 0}
XGB_PARAMS = {"n_estimators": 150, "learning_rate": 0.1, "tree_method": "hist", "random_state": 0,
              "n_jobs": 1, "verbosity": 0}
ES_PARAMS = {"n_estimators": 2000, "learning_rate": 0.1, "max_depth": 4, "early_stopping_rounds": 50,
             "tree_method": "hist", "random_state": 0, "n_jobs": 1, "verbosity": 0}
CONFIDENCE = 0.9

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "7.1": ("count distinct compositions (the groups), not rows, and give the standard deviation of y in HV.",
            "answer [number of distinct compositions, standard deviation of the hardness in HV]."),
    "7.2": ("standardise inside the pipeline (fitted on each training fold), use alpha=1.0 and the lab's `folds`, "
            "and average the five fold RMSEs.",
            "fit make_pipeline(StandardScaler(), Ridge(alpha=1.0)) on each training fold of `folds` "
            "and report the mean of the five test-fold RMSEs in HV."),
    "7.3": ("use RandomForestRegressor(**rf_params) and the lab's grouped `folds`; "
            "report the mean of the five fold RMSEs, not the pooled error.",
            "fit RandomForestRegressor(**rf_params) on each training fold and report the mean test-fold RMSE in HV."),
    "7.4": ("after early stopping on the inner split, refit on the whole training fold with best_iteration + 1 "
            "trees before scoring the test fold.",
            "in each outer fold: inner_split the training rows, fit XGBRegressor(**es_params) with eval_set on the "
            "inner validation rows, refit with the chosen number of trees on all training rows, and average the "
            "five test-fold RMSEs in HV."),
    "7.6": ("use the (n+1)-corrected quantile of the absolute calibration residuals at 90 %, "
            "fit the forest on `train_idx` only, and measure coverage on `test_idx`.",
            "answer [half-width in HV, fraction of test alloys covered]; "
            "the half-width is the ceil((n+1)*0.9)-th smallest |residual| on the calibration alloys."),
    "7.8": ("use partial_dependence with percentiles=(0.05, 0.95) on the model fitted to all alloys "
            "and subtract the first grid value's average from the last one's.",
            "answer the change of the average prediction (HV) from the 5th to the 95th percentile of delta; "
            "its sign says whether the model's hardness rises or falls."),
}


@lru_cache(maxsize=1)
def _data():
    """(X, y, groups, folds, (train_idx, cal_idx, test_idx)) exactly as the lab's set-up cells build them."""
    import pandas as pd
    from sklearn.model_selection import GroupKFold, GroupShuffleSplit

    from tabular_trees.datasets import load_mpea

    X_raw, y, groups = load_mpea(target="hardness", return_groups=True)
    X = pd.get_dummies(X_raw, columns=["processing"], dtype=float)
    folds = list(GroupKFold(n_splits=N_SPLITS).split(X, y, groups))
    rest_idx, test_idx = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, y, groups))
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(
        rest_idx, groups=groups.iloc[rest_idx]))
    return X, y, groups, folds, (rest_idx[a], rest_idx[b], test_idx)


def _inner_split(train_idx):
    """Grouped 80/20 split of a training fold (positions into X), as the lab's ``inner_split``."""
    from sklearn.model_selection import GroupShuffleSplit

    _, _, groups, _, _ = _data()
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(
        train_idx, groups=groups.iloc[train_idx]))
    return train_idx[a], train_idx[b]


def _lab_cv_rmse(model):
    """Mean over the lab's grouped folds of the test-fold RMSE of ``model`` fitted on the training fold."""
    X, y, _, folds, _ = _data()
    return mean_fold_rmse(model, X, y, folds)


# 7.1 ------------------------------------------------------------------------------------------------------
# The count is an integer and must be exact (0.2 % of 361 is less than one composition); the standard
# deviation may be computed with n - 1 (pandas) or n (numpy) in the denominator, 0.13 % apart.
@numeric_exercise("7.1", "understand", "the size of the hardness data and its spread",
                  expects="a list [number of compositions, standard deviation in HV]", rtol=0.002, close_rtol=0.05,
                  hints=_HINTS)
def _describe():
    _, y, groups, _, _ = _data()
    return [groups.nunique(), float(y.std())]


# 7.2 ------------------------------------------------------------------------------------------------------
# Ridge is deterministic; 1 % covers solvers and BLAS kernels (they agree to many digits) while rejecting
# another alpha (alpha = 10 is 1.4 % away) or a split that is not grouped.
@numeric_exercise("7.2", "apply", "grouped CV RMSE of the ridge baseline",
                  expects="a number in HV", rtol=0.01, close_rtol=0.10, hints=_HINTS)
def _ridge():
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return _lab_cv_rmse(make_pipeline(StandardScaler(), Ridge(alpha=RIDGE_ALPHA)))


# 7.3 ------------------------------------------------------------------------------------------------------
# The forest is random: with random_state=0 it is reproducible (n_jobs does not change it), and another
# seed moves the mean over folds by about 1-2 %; 3 % accepts that and another scikit-learn version.
@numeric_exercise("7.3", "apply", "grouped CV RMSE of the random forest",
                  expects="a number in HV", rtol=0.03, close_rtol=0.12, hints=_HINTS)
def _forest():
    from sklearn.ensemble import RandomForestRegressor

    return _lab_cv_rmse(RandomForestRegressor(**RF_PARAMS, n_jobs=2))


# 7.4 ------------------------------------------------------------------------------------------------------
# XGBoost's hist method without subsampling is deterministic; 3 % covers another xgboost version's
# binning and a refit that keeps the early-stopped trees' count with an off-by-one convention.
@numeric_exercise("7.4", "apply", "XGBoost with early stopping: grouped CV RMSE",
                  expects="a number in HV", rtol=0.03, close_rtol=0.12, hints=_HINTS)
def _xgb_early_stopping():
    import xgboost as xgb

    X, y, _, folds, _ = _data()
    scores = []
    for tr, te in folds:
        a, b = _inner_split(tr)
        probe = xgb.XGBRegressor(**ES_PARAMS).fit(X.iloc[a], y.iloc[a], eval_set=[(X.iloc[b], y.iloc[b])],
                                                  verbose=False)
        refit = {**ES_PARAMS, "n_estimators": probe.best_iteration + 1, "early_stopping_rounds": None}
        model = xgb.XGBRegressor(**refit).fit(X.iloc[tr], y.iloc[tr])
        scores.append(rmse(y.iloc[te], model.predict(X.iloc[te])))
    return float(np.mean(scores))


# 7.5 ------------------------------------------------------------------------------------------------------
class _BeatsBaseline:
    """Grader for the open-ended tuning task: a sanity range relative to the untuned model, not one number.

    Right when the answer is below the untuned score and at most ``max_gain`` below it; close when it is at
    most ``close_above`` above the untuned score (tuning that honestly did not help) or up to ``close_gain``
    below it (suspiciously good); wrong otherwise.
    """

    def __init__(self, reference, *, max_gain, close_gain, close_above):
        self.reference, self.max_gain, self.close_gain, self.close_above = reference, max_gain, close_gain, close_above
        self._value = None

    def value(self):
        """The untuned model's grouped-CV RMSE (computed on first use)."""
        if self._value is None:
            self._value = float(self.reference())
        return self._value

    def __call__(self, answer):
        arr, problem = _as_numbers(answer, (1,))
        if arr is None:
            return "wrong", problem + "."
        a, base = float(arr[0]), self.value()
        if (1 - self.max_gain) * base <= a < base:
            return "right", "right: lower than the untuned model, by a plausible margin."
        if base <= a <= (1 + self.close_above) * base:
            return "close", ("close: your tuned score is not below the untuned one (print `untuned.mean()`). Enqueue "
                             "the untuned setting as the first trial, minimise the RMSE, and refit the best setting "
                             "on the whole training fold before scoring the test fold.")
        if (1 - self.close_gain) * base <= a < (1 - self.max_gain) * base:
            return "close", ("close, but the gain is suspiciously large: make sure each search scores its trials on "
                             "the inner split of the training fold only, never on the test fold it is evaluated on.")
        return "wrong", ("not right. Hint: report the mean over the five outer folds of the test-fold RMSE (in HV) of "
                         "the model refitted with each fold's best setting.")


def _untuned_xgb():
    import xgboost as xgb

    return _lab_cv_rmse(xgb.XGBRegressor(**XGB_PARAMS))


register(Exercise(
    "7.5", "extend", "tuning XGBoost under a budget of trials",
    # Open-ended: the search may differ (sampler, space, seed), so the check is a sanity range. Nested tuning
    # with the lab's budget gains 3-5 % over the untuned model on these folds; more than 15 % would be a
    # leak of the test folds into the search on data this size.
    _BeatsBaseline(_untuned_xgb, max_gain=0.15, close_gain=0.30, close_above=0.05),
    expects="a number in HV"))


# 7.6 ------------------------------------------------------------------------------------------------------
# The quantile rule (ceil((n+1)(1-alpha))-th smallest residual) is what MAPIE's SplitConformalRegressor
# uses; a neighbouring order statistic or another forest seed moves the half-width by 1-2 % and the
# coverage by one or two of the 101 test alloys (2 %); 5 % accepts those.
@numeric_exercise("7.6", "extend", "split-conformal interval: half-width and coverage",
                  expects="a list [half-width in HV, coverage as a fraction]", rtol=0.05, close_rtol=0.20,
                  hints=_HINTS)
def _conformal():
    from sklearn.ensemble import RandomForestRegressor

    X, y, _, _, (train_idx, cal_idx, test_idx) = _data()
    model = RandomForestRegressor(**RF_PARAMS, n_jobs=2).fit(X.iloc[train_idx], y.iloc[train_idx])
    residuals = np.sort(np.abs(y.iloc[cal_idx].to_numpy() - model.predict(X.iloc[cal_idx])))
    n = len(residuals)
    half_width = residuals[int(np.ceil((n + 1) * CONFIDENCE)) - 1]        # the split-conformal quantile
    covered = np.abs(y.iloc[test_idx].to_numpy() - model.predict(X.iloc[test_idx])) <= half_width
    return [float(half_width), float(covered.mean())]


# 7.7 ------------------------------------------------------------------------------------------------------
word_exercise("7.7", "apply", "the most important feature by permutation importance",
              expects="a column name of X as a string",
              right="bfddfa5af1a11753d3a4b8be1f2c97a704250dee01805b750527fe2b9d16e26c",
              close={"460dcef06a9aea7d01a8301f362a733ce5e2451438bdb77426ef11928cf55fe8":
                     "that one is a strong runner-up; average the importances over all five held-out folds."},
              hint_wrong="compute permutation_importance of XGBRegressor(**xgb_params) on each held-out fold, "
                         "average over folds and give the column name with the largest mean.")


# 7.8 ------------------------------------------------------------------------------------------------------
# XGBoost without subsampling is deterministic and the partial dependence at the grid ends does not
# depend on the grid resolution; 5 % covers percentile conventions for the grid ends (numpy's and
# scikit-learn's differ slightly) and another xgboost version.
@numeric_exercise("7.8", "understand", "the effect of the atomic size difference in the model",
                  expects="a number in HV (positive if the prediction rises)", rtol=0.05, close_rtol=0.25,
                  hints=_HINTS)
def _partial_dependence_delta():
    import xgboost as xgb
    from sklearn.inspection import partial_dependence

    X, y, _, _, _ = _data()
    model = xgb.XGBRegressor(**XGB_PARAMS).fit(X, y)
    pd_delta = partial_dependence(model, X, ["delta"], grid_resolution=20, percentiles=(0.05, 0.95))
    average = pd_delta["average"][0]
    return float(average[-1] - average[0])
