"""check()'s limit on attempts and its log for batch grading (tabular_trees.exercises._core)."""

import json

import pytest

from tabular_trees.exercises import _core
from tabular_trees.exercises._core import Exercise, answer_digest, check, choice, numeric, register


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(_core, "_REGISTRY", {})
    monkeypatch.setattr(_core, "_ATTEMPTS", {})
    register(Exercise("97.1", "apply", "a word", choice("97.1", answer_digest("97.1", "red"), hint_wrong="a colour"),
                      expects="a word", max_attempts=2))
    register(Exercise("97.2", "apply", "a number", numeric(lambda: 3.0, rtol=0.01, close_rtol=0.1, hint_close="c",
                                                         hint_wrong="w"), expects="a number"))


def test_the_limit_counts_different_wrong_answers_and_then_grades_nothing(registry):
    assert check("97.1", "blue").verdict == "wrong" and check("97.1", "blue").verdict == "wrong"   # same answer twice
    assert _core.attempts("97.1") == 1
    assert check("97.1", "green").verdict == "wrong"
    late = check("97.1", "red")                              # right, but after two different wrong answers
    assert late.verdict == "wrong" and "Checking is not a search" in late.message
    _core.reset_attempts("97.1")                             # a new kernel
    assert check("97.1", "red").verdict == "right"
    for answer in (1.0, 2.0, 4.0, 5.0, 3.0):                 # no limit: every answer is graded
        check("97.2", answer)
    assert check("97.2", 3.0).verdict == "right" and _core.attempts("97.2") == 5


def test_every_check_is_logged_when_the_variable_is_set(registry, tmp_path, monkeypatch):
    check("97.2", 3.0)                                       # not logged: the variable is not set
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(_core.LOG_ENV, str(log))
    check("97.2", ...)
    check("97.2", 5.0)
    check("97.1", "red")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["exercise"], r["verdict"]) for r in lines] == [("97.2", "unanswered"), ("97.2", "wrong"),
                                                                ("97.1", "right")]
    assert lines[1]["attempts"] == 2 and "5.0" not in json.dumps(lines)   # the log never holds the answer
    with pytest.raises(ValueError, match="max_attempts"):
        Exercise("97.3", "apply", "x", lambda a: ("right", ""), max_attempts=0)
