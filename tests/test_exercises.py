"""The self-check mechanism (tabular_trees.exercises): verdicts, hints that never reveal the answer, clear errors.

Each chapter's own exercises are tested in ``tests/test_exercises_chNN.py`` (right, close and wrong answers).
"""

import importlib

import numpy as np
import pytest
from _exercise_cases import CHAPTER_EXERCISES
from hypothesis import given
from hypothesis import strategies as st

from tabular_trees import exercises
from tabular_trees.exercises import _core
from tabular_trees.exercises._core import Exercise, answer_digest, check, choice, numeric, register


@pytest.fixture
def registry(monkeypatch):
    """A private registry with one numeric, one array and one word exercise (the real ones stay untouched)."""
    monkeypatch.setattr(_core, "_REGISTRY", {})
    calls = []

    def reference():
        calls.append(1)
        return 12.5

    register(Exercise("98.1", "apply", "a number", numeric(reference, rtol=0.02, close_rtol=0.2,
                                                             hint_close="round later", hint_wrong="re-read the task"),
                      expects="a number"))
    register(Exercise("98.2", "understand", "two numbers",
                      numeric(lambda: [1.0, -2.0], rtol=0.0, atol=1e-6, close_rtol=0.1,
                              hint_close="h", hint_wrong="w"), expects="two numbers"))
    register(Exercise("98.3", "extend", "a word",
                      choice("98.3", answer_digest("98.3", "MNAR"), close={answer_digest("98.3", "MAR"): "not quite"},
                             hint_wrong="think about what causes the gap", options=["MCAR", "MAR", "MNAR"]),
                      expects="one of 'MCAR', 'MAR', 'MNAR'"))
    return calls


def test_numeric_verdicts_and_the_reference_is_computed_once(registry):
    assert check("98.1", 12.6).verdict == "right"
    assert bool(check("98.1", 12.5)) and not bool(check("98.1", 14.0))
    assert check("98.1", 14.0).verdict == "close"
    assert check("98.1", -12.5).verdict == "wrong"
    assert check("98.1", np.float32(12.5)).verdict == "right" and check("98.1", [12.5]).verdict == "right"
    assert len(registry) == 1  # computed on the first check, then cached


def test_messages_never_show_the_reference(registry):
    for answer in (12.5, 13.5, 100.0, "twelve", float("nan"), [1, 2]):
        result = check("98.1", answer)
        assert "12.5" not in result.message and "12.5" not in repr(result)
    assert "round later" in check("98.1", 14.0).message and "re-read" in check("98.1", 100.0).message


def test_arrays_dicts_and_wrong_kinds(registry):
    assert check("98.2", [1.0, -2.0]).verdict == "right"
    assert check("98.2", {"a": 1.0, "b": -2.0}).verdict == "right"  # a dict is read in insertion order
    assert check("98.2", [1.05, -2.0]).verdict == "close"
    assert check("98.2", [1.0]).verdict == "wrong" and "shape" in check("98.2", [1.0]).message
    assert "numbers" in check("98.2", "1, -2").message
    assert "NaN" in check("98.2", [np.nan, -2.0]).message
    assert check("98.1", True).verdict == "wrong"  # a bool is not a number here


def test_word_answers_are_compared_by_digest_case_and_space_insensitive(registry):
    assert check("98.3", "  mnar ").verdict == "right"
    assert check("98.3", "MAR").verdict == "close" and "not quite" in check("98.3", "MAR").message
    assert check("98.3", "MCAR").verdict == "wrong"
    assert "one of" in check("98.3", "no idea").message
    assert check("98.3", 3).verdict == "wrong"
    # only digests are stored: without an options list the grader holds no answer in clear
    grade = choice("98.5", answer_digest("98.5", "MNAR"), hint_wrong="w")
    assert "MNAR" not in repr([c.cell_contents for c in grade.__closure__])
    assert grade("mnar") == ("right", "right.")


def test_unanswered_and_unknown(registry):
    for empty in (..., None):
        result = check("98.1", empty)
        assert result.verdict == "unanswered" and "replace `...`" in result.message and not result
    with pytest.raises(ValueError, match="98.1, 98.2, 98.3"):
        check("98.9", 1.0)
    with pytest.raises(TypeError, match="exercise_id must be a string"):
        check(98.1, 1.0)
    assert exercises.describe("98.3").startswith("Exercise 98.3 (extend): a word; answer with one of")


def test_registration_is_validated(registry):
    grade = numeric(lambda: 1.0, rtol=0.1, close_rtol=0.2, hint_close="", hint_wrong="")
    with pytest.raises(ValueError, match="registered twice"):
        register(Exercise("98.1", "apply", "again", grade))
    with pytest.raises(ValueError, match="level must be one of"):
        Exercise("98.4", "hard", "x", grade)
    with pytest.raises(ValueError, match="chapter.number"):
        Exercise("ex4", "apply", "x", grade)
    with pytest.raises(ValueError, match="rtol < close_rtol"):
        numeric(lambda: 1.0, rtol=0.2, close_rtol=0.1, hint_close="", hint_wrong="")
    with pytest.raises(TypeError, match="reference must be a function"):
        numeric(1.0, rtol=0.1, close_rtol=0.2, hint_close="", hint_wrong="")
    with pytest.raises(TypeError, match="chapter must be an int"):
        exercises.exercise_ids(chapter="5")


@given(ref=st.floats(-1e6, 1e6, allow_nan=False).filter(lambda r: abs(r) > 1e-3),
       rel=st.floats(0.0, 10.0, allow_nan=False))
def test_numeric_verdict_follows_the_relative_error(ref, rel):
    grade = numeric(lambda: ref, rtol=0.05, close_rtol=0.5, hint_close="", hint_wrong="")
    verdict, _ = grade(ref * (1 + rel))
    expected = "right" if rel <= 0.049 else "close" if 0.051 <= rel <= 0.49 else "wrong" if rel >= 0.51 else None
    if expected is not None:  # skip the razor-thin bands at the tolerances, where rounding decides
        assert verdict == expected


def test_every_registered_exercise_has_a_book_number_and_a_level():
    ids = exercises.exercise_ids()
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("."))))
    for exercise_id in ids:
        ex = _core._REGISTRY[exercise_id]
        assert ex.level in _core.LEVELS and ex.title and ex.expects


@pytest.mark.parametrize("chapter", sorted(CHAPTER_EXERCISES))
def test_every_chapter_has_the_notebooks_ids_at_every_level(chapter):
    ids = exercises.exercise_ids(chapter=chapter)
    assert ids == [f"{chapter}.{k}" for k in range(1, CHAPTER_EXERCISES[chapter] + 1)]
    assert {_core._REGISTRY[i].level for i in ids} == set(_core.LEVELS)
    for exercise_id in ids:
        assert exercises.describe(exercise_id).startswith(f"Exercise {exercise_id} (")


@pytest.mark.parametrize("chapter", sorted(CHAPTER_EXERCISES))
def test_every_chapter_has_hints_for_its_numeric_exercises_and_no_others(chapter):
    module = importlib.import_module(f"tabular_trees.exercises._chapter{chapter:02d}")
    numeric_ids = [i for i in exercises.exercise_ids(chapter=chapter) if isinstance(_core._REGISTRY[i].grade, numeric)]
    assert list(module._HINTS) == numeric_ids
    assert all(len(pair) == 2 and all(isinstance(h, str) and h for h in pair) for pair in module._HINTS.values())


# Every exercise of the book, graded the same way: these replace a copy of the same tests per chapter; the
# chapter files (tests/test_exercises_chNN.py) test what is particular to a chapter (word answers, typical slips,
# plausible reference values).
BOOK_EXERCISES = exercises.exercise_ids()
NUMERIC_EXERCISES = [i for i in BOOK_EXERCISES if isinstance(_core._REGISTRY[i].grade, numeric)]


@pytest.mark.parametrize("exercise_id", BOOK_EXERCISES)
def test_every_book_exercise_reports_an_open_answer_as_unanswered(exercise_id):
    for empty in (..., None):
        assert check(exercise_id, empty).verdict == "unanswered"


@pytest.mark.parametrize("exercise_id", NUMERIC_EXERCISES)
def test_every_numeric_book_exercise_grades_right_close_and_wrong(exercise_id):
    grader = _core._REGISTRY[exercise_id].grade
    ref = grader.value()
    right_band = grader.atol + grader.rtol * np.abs(ref)
    close_band = grader.close_atol + grader.close_rtol * np.abs(ref)
    assert check(exercise_id, ref.tolist()).verdict == "right"
    assert check(exercise_id, (ref + 0.5 * right_band).tolist()).verdict == "right"
    if np.any(close_band > right_band):  # halfway between the bands, where they differ
        close = check(exercise_id, (ref + np.where(close_band > right_band, 0.5 * (right_band + close_band), 0.0)).tolist())
        assert close.verdict == "close" and "Hint" in close.message, close
    wrong = check(exercise_id, (ref + 2 * close_band + 1.0).tolist())
    assert wrong.verdict == "wrong" and "Hint" in wrong.message, wrong
    assert check(exercise_id, "a word").verdict == "wrong"
