"""Self-check for the course's exercises: right, close (with a hint) or wrong, never the answer.

In a chapter, an exercise you can check yourself ends with two cells::

    answer_5_3 = ...                # your answer (a number, an array or a word, as the exercise says)
    check("5.3", answer_5_3)        # ✓ right / ≈ close, with a hint / ✗ not right, with a hint

:func:`check` compares your answer with a reference that the library computes when you check (or with a
salted digest for answers that are words), so neither the notebook nor this message shows the solution.
:func:`describe` names an exercise and the kind of answer it wants; :func:`exercise_ids` lists them.

Each chapter's exercises live in their own module (``_chapter05`` for chapter 5, ...), registered on import.
There each exercise is declared once, in book order: ``@numeric_exercise(...)`` above the function that
computes its reference answer (with its tolerances and, in a comment, why they are what they are), or
``word_exercise(...)`` for an answer stored as digests; the hints a student reads after a close or wrong
answer are in the module's ``_HINTS`` table. Computations that several chapters' references share (the RMSE
over grouped folds, the one-thread guard) are in ``_references``.
"""

from ._core import CheckResult, Exercise, check, describe, exercise_ids

# Registration happens on import, in book order.
from . import _chapter01, _chapter02, _chapter03, _chapter04  # noqa: E402,F401
from . import _chapter05, _chapter06, _chapter07  # noqa: E402,F401
from . import _chapter08, _chapter09, _chapter10  # noqa: E402,F401

__all__ = ["check", "describe", "exercise_ids", "CheckResult", "Exercise"]
