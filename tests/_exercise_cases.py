"""What the tests of the self-check exercises share (tests/test_exercises*.py).

``CHAPTER_EXERCISES`` is the number of checkable exercises of every chapter (the notebooks' "## Exercises");
``reference`` reads a numeric exercise's reference answer; ``assert_verdicts`` checks that typical answers and
slips get the verdicts the chapter's hints are written for.
"""

from tabular_trees.exercises import check
from tabular_trees.exercises._core import _REGISTRY

CHAPTER_EXERCISES = {1: 6, 2: 6, 3: 6, 4: 6, 5: 7, 6: 7, 7: 8, 8: 6, 9: 7, 10: 8}


def reference(exercise_id):
    """The reference answer of a numeric exercise, as the library computes it (once per process)."""
    return _REGISTRY[exercise_id].grade.value()


def assert_verdicts(exercise_id, *, right=(), close=(), wrong=()):
    """Assert that every answer in ``right``, ``close`` and ``wrong`` gets that verdict from ``check``."""
    for verdict, answers in (("right", right), ("close", close), ("wrong", wrong)):
        for answer in answers:
            result = check(exercise_id, answer)
            assert result.verdict == verdict, f"{answer!r} for {exercise_id}: {result!r}, expected {verdict}"
