"""Chapter 6's self-check exercises: independent facts, typical slips and plausible reference values."""

import pytest
from _exercise_cases import assert_verdicts, reference

from tabular_trees.exercises import check


def test_numeric_references_are_what_the_chapter_computes():
    # Independent facts: the prevalence of FCC is 94 of 691 phase records; the conformal rank for n = 200 and
    # alpha = 0.1 is ceil(201 * 0.9) = 181; the expected maximum of 20 standard normals is 1.8675 (tables of
    # normal order statistics).
    assert reference("6.1") == pytest.approx(94 / 691)
    assert reference("6.3") == 181
    assert reference("6.5") == pytest.approx(1.8675, abs=1e-3)
    assert 100 < reference("6.4") < 140          # HV, a grouped cross-validated error on hardness
    assert 250 < reference("6.6") < 400          # HV, a full interval width


def test_conformal_rank_slip_is_close():
    # The usual mistake, ceil(n (1 - alpha)) = 180 instead of 181, gets the close hint.
    result = check("6.3", 180)
    assert result.verdict == "close" and "n + 1" in result.message


def test_choice_exercise():
    assert_verdicts("6.2", right=["split conformal", "  Split   Conformal "], close=["conformal"],
                    wrong=["CQR", "quantile forest", 3])
    result = check("6.2", "something else")
    assert result.verdict == "wrong" and "answer with one of" in result.message
