"""Checkable exercises of chapter 2, "Bagging and random forests".

The reference answers are computed here when a student first checks: from the chapter's formulas (numpy) and,
inside the functions only, from scikit-learn forests on the MPEA data of ``tabular_trees.datasets.load_mpea``
(pandas is needed there). The one answer that is an option is stored as a salted digest. Every reference takes
at most a few seconds.
"""

from __future__ import annotations

import numpy as np

from ._core import numeric_exercise, word_exercise
from ._references import mean_fold_rmse, rmse


# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "2.1": ("give the exact value (a simple fraction) or more digits.",
            "the variance of the sum, Bσ²(1 + (B − 1)ρ), cannot be negative; solve for ρ with B = 5."),
    "2.2": ("B must be an integer large enough: round up, not to the nearest integer.",
            "solve ρσ² + (1 − ρ)σ²/B ≤ 1.05 ρσ² for B with ρ = 0.15; σ² cancels."),
    "2.3": ("use the exact probability (1 − 1/n)^n for n = 200, not its limit 1/e.",
            "an OOB prediction averages the trees whose bootstrap sample does NOT contain the row."),
    "2.5": ("keep full precision, and use exactly the chapter's models and "
            "GroupKFold(n_splits=5, shuffle=True, random_state=0).",
            "use the family groups of load_mpea(..., group_by='family') in place of the composition groups, and "
            "answer [single tree, random forest] in HV."),
    "2.6": ("use n_estimators=100, max_features=1/3, random_state=0 and the chapter's grouped folds, with full "
            "precision.",
            "load the data with load_mpea(target='hardness', aggregate=False, return_groups=True) and answer "
            "[OOB RMSE, grouped CV RMSE] in HV."),
}


def _with_encoding(model):
    """The chapter's pipeline: one-hot encoded processing route, every other column passed through."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    encode = ColumnTransformer(
        [("processing", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["processing"])],
        remainder="passthrough", verbose_feature_names_out=False)
    return make_pipeline(encode, model)


def _grouped_rmse(model, X, y, groups):
    """Mean RMSE (HV) of ``model`` over GroupKFold(n_splits=5, shuffle=True, random_state=0), as in the chapter."""
    from sklearn.model_selection import GroupKFold

    folds = GroupKFold(n_splits=5, shuffle=True, random_state=0).split(X, y, groups)
    return mean_fold_rmse(_with_encoding(model), X, y, folds)


# 2.1 ------------------------------------------------------------------------------------------------------
# A closed form: right within 0.1 % (an exact fraction or a decimal with three digits). "Close" within 10 %;
# -1/B = -0.2 (a common slip) is 20 % off and wrong, with a hint.
@numeric_exercise("2.1", "understand", "smallest possible correlation of five equicorrelated variables",
                  expects="a number (a correlation, between -1 and 0)", rtol=0.001, close_rtol=0.10, hints=_HINTS)
def _smallest_rho(n_variables=5):
    """Smallest rho for which the equicorrelation matrix of ``n_variables`` variables is positive semidefinite.

    Its eigenvalues are 1 - rho and 1 + (B - 1) rho, where B - 1 = (largest eigenvalue of the all-ones matrix) - 1.
    """
    largest = np.linalg.eigvalsh(np.ones((n_variables, n_variables))).max()
    return float(-1.0 / (largest - 1.0))


# 2.2 ------------------------------------------------------------------------------------------------------
# An integer: right only when exact (atol 0.01). One tree short (rounding down instead of up) or a few off
# is "close" (within 5 %); forgetting the (1 - rho) factor gives 134, 18 % off, wrong.
@numeric_exercise("2.2", "apply", "number of trees that bring a forest within 5 % of its floor",
                  expects="an integer (a number of trees)",
                  rtol=0.0, close_rtol=0.05, atol=0.01, close_atol=0.0, hints=_HINTS)
def _trees_to_floor(rho=0.15, within=0.05):
    """Smallest B with rho + (1 - rho) / B <= (1 + within) * rho (sigma² cancels), found by scanning B."""
    B = np.arange(1, 100_001)
    return float(B[np.argmax(rho + (1 - rho) / B <= (1 + within) * rho)])


# 2.3 ------------------------------------------------------------------------------------------------------
# The exact value for n = 200 (73.4); the simulated share of 10,000 bootstrap samples with the exercise's seed is
# 0.05 % off (its standard error is about 0.1 %), so right within 0.15 %. Using the limit e^-1 (0.26 % high) or
# 0.37 B (0.8 % high) is "close" (within 3 %); 0.632 B (the trees that did see the row) is wrong.
@numeric_exercise("2.3", "apply", "expected number of trees in one out-of-bag prediction",
                  expects="a number (of trees)", rtol=0.0015, close_rtol=0.03, hints=_HINTS)
def _oob_trees(n=200, n_trees=200):
    """Expected number of trees that leave a given row out: B (1 - 1/n)^n."""
    return float(n_trees * (1 - 1 / n) ** n)


# 2.4 ------------------------------------------------------------------------------------------------------
word_exercise("2.4", "understand", "which max_features gives the worst 100-tree forest on Friedman #1",
              expects='one of "10", "5", "3", "1" (a string)', options=("10", "5", "3", "1"),
              right="074d5f67d10ac66b430f91747d29664cfa77d2e3845ce3045ce0b305baf0f7aa",
              close={"46f4a395b52856032ecde6c203b0532d855a1fa090ec35f0e66a06dd950f3f43":
                     "compare bias² + variance of all four forests, not only their variance or ρ."},
              hint_wrong="the worst forest is not the one with the largest ρ: look at the bias² column.")


# 2.5 ------------------------------------------------------------------------------------------------------
# Fixed folds and seeded models: any correct computation gives the same trees; only the order in which a
# forest sums its trees (threads) changes the last bits, so right within 1e-6. "Close" within 5 %: a rounded
# answer; the composition-grouped errors of the chapter are farther away (wrong).
@numeric_exercise("2.5", "apply", "single tree and random forest under family-grouped cross-validation",
                  expects="two numbers [single tree, random forest] in HV", rtol=1e-6, close_rtol=0.05, hints=_HINTS)
def _family_grouped_rmse():
    """[single tree, random forest] RMSE (HV) under family-grouped 5-fold CV, the chapter's models."""
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    from ..datasets import load_mpea

    X, y, families = load_mpea(target="hardness", return_groups=True, group_by="family")
    forest = RandomForestRegressor(n_estimators=300, max_features=1 / 3, random_state=0, n_jobs=2)
    return np.array([_grouped_rmse(DecisionTreeRegressor(random_state=0), X, y, families),
                     _grouped_rmse(forest, X, y, families)])


# 2.6 ------------------------------------------------------------------------------------------------------
# Seeded forests on a fixed table and folds: right within 1e-6 (only the summation order of the trees can
# change the last bits). "Close" within 5 %: a rounded answer or a forest of another size.
@numeric_exercise("2.6", "extend", "OOB and grouped CV error when repeated measurements are kept",
                  expects="two numbers [OOB RMSE, grouped CV RMSE] in HV", rtol=1e-6, close_rtol=0.05, hints=_HINTS)
def _unaggregated_oob_and_grouped():
    """[OOB RMSE, grouped 5-fold CV RMSE] (HV) of a 100-tree forest on every hardness measurement."""
    from sklearn.ensemble import RandomForestRegressor

    from ..datasets import load_mpea

    X, y, groups = load_mpea(target="hardness", aggregate=False, return_groups=True)

    def forest(**kw):
        return RandomForestRegressor(n_estimators=100, max_features=1 / 3, random_state=0, n_jobs=2, **kw)

    fitted = _with_encoding(forest(oob_score=True)).fit(X, y)
    oob = rmse(y, fitted[-1].oob_prediction_)
    return np.array([oob, _grouped_rmse(forest(), X, y, groups)])


