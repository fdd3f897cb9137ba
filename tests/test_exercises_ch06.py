"""The self-check of chapter 6's exercises: right, close, wrong and unanswered answers get those verdicts."""

import pytest

from tabular_trees.exercises import check, describe, exercise_ids
from tabular_trees.exercises import _core
from tabular_trees.exercises._core import numeric



def _grader(exercise_id):
    grader = _core._REGISTRY[exercise_id].grade
    assert isinstance(grader, numeric)
    return grader


def test_chapter_6_has_six_exercises_at_all_levels():
    ids = exercise_ids(chapter=6)
    assert ids == ["6.1", "6.2", "6.3", "6.4", "6.5", "6.6"]
    assert {_core._REGISTRY[i].level for i in ids} == {"understand", "apply", "extend"}
    for i in ids:
        assert describe(i).startswith(f"Exercise {i} (")


def test_numeric_references_are_what_the_chapter_computes():
    # Independent facts: the prevalence of FCC is 94 of 691 phase records; the conformal rank for n = 200 and
    # alpha = 0.1 is ceil(201 * 0.9) = 181; the expected maximum of 20 standard normals is 1.8675 (tables of
    # normal order statistics).
    assert _grader("6.1").value() == pytest.approx(94 / 691)
    assert _grader("6.3").value() == 181
    assert _grader("6.5").value() == pytest.approx(1.8675, abs=1e-3)
    assert 100 < _grader("6.4").value() < 140          # HV, a grouped cross-validated error on hardness
    assert 250 < _grader("6.6").value() < 400          # HV, a full interval width


def test_conformal_rank_slip_is_close():
    # The usual mistake, ceil(n (1 - alpha)) = 180 instead of 181, gets the close hint.
    result = check("6.3", 180)
    assert result.verdict == "close" and "n + 1" in result.message


def test_choice_exercise():
    assert check("6.2", "split conformal").verdict == "right"
    assert check("6.2", "  Split   Conformal ").verdict == "right"
    assert check("6.2", "conformal").verdict == "close"
    assert check("6.2", "CQR").verdict == "wrong"
    assert check("6.2", "quantile forest").verdict == "wrong"
    result = check("6.2", "something else")
    assert result.verdict == "wrong" and "answer with one of" in result.message
    assert check("6.2", 3).verdict == "wrong"
