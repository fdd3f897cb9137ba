"""The self-check machinery: a registry of exercises and the verdict of one answer.

An exercise knows how to *grade* an answer, not how to print it. Numeric reference answers are computed by
the library when a student first checks (``reference`` is a function, cached per process), so the notebook
does not print them; an answer that is a word or a choice is stored only as a salted SHA-256 digest. This is
a formative self-check, not an exam: the library is installed on the student's machine, so anyone who reads
its code can compute every reference (``book/instructors.md`` says how to use the lab for marks).
The chapter modules declare their exercises with :func:`numeric_exercise` and :func:`word_exercise`.

Two things serve instructors. An exercise may limit how many different wrong answers one session may try
(``Exercise.max_attempts``): past the limit every answer, the right one included, is graded wrong, with a hint
that checking is not a search. And when the environment variable ``TABULAR_TREES_CHECK_LOG`` names a file,
every call of :func:`check` appends one JSON line to it (exercise, verdict, attempt number, never the answer);
``tools/grade_notebooks.py`` reads these lines to grade a folder of submitted notebooks.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["CheckResult", "Exercise", "check", "exercise_ids", "describe", "register", "numeric", "choice",
           "answer_digest", "numeric_exercise", "exact_integers", "word_exercise", "reset_attempts", "attempts"]

LEVELS = ("understand", "apply", "extend")
VERDICTS = ("right", "close", "wrong", "unanswered")
_ID = re.compile(r"^\d{1,2}\.\d{1,2}$")
_REGISTRY: dict[str, "Exercise"] = {}
_ATTEMPTS: dict[str, dict[str, str]] = {}     # exercise id -> {fingerprint of an answer: its verdict}
LOG_ENV = "TABULAR_TREES_CHECK_LOG"


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: ``verdict`` is ``"right"``, ``"close"``, ``"wrong"`` or ``"unanswered"``.

    ``message`` is what the student reads: a hint for a close or wrong answer, never the reference answer.
    ``bool(result)`` is true only for a right answer.
    """

    exercise_id: str
    verdict: str
    message: str

    def __bool__(self):
        return self.verdict == "right"

    def __repr__(self):
        mark = {"right": "✓", "close": "≈", "wrong": "✗", "unanswered": "…"}[self.verdict]
        return f"{mark} Exercise {self.exercise_id}: {self.message}"

    __str__ = __repr__


@dataclass(frozen=True)
class Exercise:
    """One checkable exercise.

    Parameters
    ----------
    exercise_id : str
        ``"chapter.number"``, as the book numbers it (for example ``"5.3"``).
    level : {"understand", "apply", "extend"}
        How much the exercise asks: recall and explain, use what the chapter shows, or go beyond it.
    title : str
        A few words naming the task.
    grade : callable
        ``grade(answer) -> (verdict, message)`` with a verdict among ``"right"``, ``"close"``, ``"wrong"``.
        It is called only with an answer that is not ``None`` or ``...``.
    expects : str
        What kind of answer to give, shown when the answer has the wrong kind (for example "a number in HV").
    max_attempts : int or None
        How many different answers that are not right one session may try; past it every answer is graded
        wrong with a hint that checking is not a search (``None``: no limit). For exercises whose answers
        could otherwise be found by trying candidates one by one (a column name, one of a few options).
    """

    exercise_id: str
    level: str
    title: str
    grade: Callable[[Any], tuple[str, str]] = field(repr=False)
    expects: str = "an answer"
    max_attempts: int | None = None

    def __post_init__(self):
        if not isinstance(self.exercise_id, str) or not _ID.match(self.exercise_id):
            raise ValueError(f"exercise_id must look like '5.3' (chapter.number), got {self.exercise_id!r}.")
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {self.level!r}.")
        if self.max_attempts is not None and (not isinstance(self.max_attempts, int) or self.max_attempts < 1):
            raise ValueError(f"max_attempts must be None or a positive int, got {self.max_attempts!r}.")


def register(exercise):
    """Add ``exercise`` to the registry that :func:`check` reads; an id may be registered once."""
    if not isinstance(exercise, Exercise):
        raise TypeError(f"exercise must be an Exercise, got {type(exercise).__name__}.")
    if exercise.exercise_id in _REGISTRY:
        raise ValueError(f"exercise {exercise.exercise_id} is registered twice; give the new one another number.")
    _REGISTRY[exercise.exercise_id] = exercise
    return exercise


def _sort_key(exercise_id):
    chapter, number = exercise_id.split(".")
    return int(chapter), int(number)


def exercise_ids(chapter=None):
    """The ids of the checkable exercises, in book order (of one chapter if ``chapter`` is given).

    Examples
    --------
    >>> from tabular_trees.exercises import exercise_ids
    >>> all(i.startswith("5.") for i in exercise_ids(chapter=5))
    True
    """
    if chapter is not None and (isinstance(chapter, bool) or not isinstance(chapter, numbers.Integral)):
        raise TypeError(f"chapter must be an int such as 5, got {chapter!r}.")
    ids = sorted(_REGISTRY, key=_sort_key)
    return [i for i in ids if chapter is None or _sort_key(i)[0] == chapter]


def _lookup(exercise_id):
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a string such as '5.3', got {type(exercise_id).__name__}.")
    key = exercise_id.strip()
    if key not in _REGISTRY:
        chapter = key.split(".")[0]
        same = [i for i in exercise_ids() if i.split(".")[0] == chapter]
        known = ", ".join(same) if same else ", ".join(exercise_ids())
        raise ValueError(f"exercise_id {exercise_id!r} is not a checkable exercise; checkable ones: {known}.")
    return _REGISTRY[key]


def describe(exercise_id):
    """One line naming the exercise and its level (never its answer).

    Examples
    --------
    >>> from tabular_trees.exercises import describe, exercise_ids
    >>> describe(exercise_ids()[0]).startswith("Exercise ")
    True
    """
    ex = _lookup(exercise_id)
    return f"Exercise {ex.exercise_id} ({ex.level}): {ex.title}; answer with {ex.expects}."


def check(exercise_id, answer):
    """Say whether ``answer`` to exercise ``exercise_id`` is right, close (with a hint) or wrong.

    The reference answer is computed by the library (or compared through a digest) and never shown.
    An answer left as ``...`` or ``None`` is reported as not yet given, so a notebook whose exercises are
    still open runs top to bottom.

    Parameters
    ----------
    exercise_id : str
        The exercise's number in the book, such as ``"5.3"``.
    answer : object
        Your answer, of the kind the exercise asks for (see :func:`describe`).

    Returns
    -------
    CheckResult
        Displays as one line; ``result.verdict`` is ``"right"``, ``"close"``, ``"wrong"`` or ``"unanswered"``.

    Examples
    --------
    >>> from tabular_trees.exercises import check, exercise_ids
    >>> check(exercise_ids()[0], ...).verdict
    'unanswered'
    """
    ex = _lookup(exercise_id)
    if answer is None or answer is Ellipsis:
        return _record(CheckResult(ex.exercise_id, "unanswered",
                                   f"no answer yet: replace `...` with {ex.expects} and run this cell again."))
    tried = _ATTEMPTS.setdefault(ex.exercise_id, {})
    key = _fingerprint(answer)
    failed = sum(v != "right" for k, v in tried.items() if k != key)
    if ex.max_attempts is not None and failed >= ex.max_attempts:
        tried.setdefault(key, "wrong")
        return _record(CheckResult(ex.exercise_id, "wrong", (
            f"not graded: this Python session has already tried {failed} different answers that were not right "
            f"(the limit for this exercise is {ex.max_attempts}). Checking is not a search: compute the answer "
            "as the exercise says. Your instructor's grading counts the attempts.")))
    verdict, message = ex.grade(answer)
    if verdict not in VERDICTS[:3]:
        raise RuntimeError(f"exercise {ex.exercise_id} graded with an unknown verdict {verdict!r}.")
    tried[key] = verdict
    return _record(CheckResult(ex.exercise_id, verdict, message))


def _fingerprint(answer):
    """A short digest of an answer's printed form: tells different answers apart without storing them."""
    try:
        text = repr(np.asarray(answer, dtype=float).round(6).tolist())
    except (TypeError, ValueError):
        text = repr(answer)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def reset_attempts(exercise_id=None):
    """Forget the answers tried in this Python session (of one exercise, or of all), as a new kernel does."""
    if exercise_id is None:
        _ATTEMPTS.clear()
    else:
        _ATTEMPTS.pop(_lookup(exercise_id).exercise_id, None)


def attempts(exercise_id):
    """How many different answers to ``exercise_id`` this Python session has checked."""
    return len(_ATTEMPTS.get(_lookup(exercise_id).exercise_id, {}))


def _record(result):
    """Append the verdict to the file named by ``TABULAR_TREES_CHECK_LOG``, when it is set (batch grading)."""
    path = os.environ.get(LOG_ENV)
    if path:
        line = {"exercise": result.exercise_id, "verdict": result.verdict,
                "attempts": attempts(result.exercise_id), "message": result.message}
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
    return result


# ------------------------------------------------------------------------------------------ graders


def _as_numbers(answer, shape):
    """The answer as a float array of the reference's shape, or a message saying what is wrong with it."""
    if isinstance(answer, (str, bytes)) or isinstance(answer, bool):
        return None, "this exercise expects numbers, not " + type(answer).__name__
    if isinstance(answer, dict):
        answer = list(answer.values())
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None, f"this exercise expects numbers, got {type(answer).__name__}"
    if arr.size == 1 and math.prod(shape) == 1:
        arr = arr.reshape(shape)
    if arr.shape != tuple(shape):
        return None, f"expected {math.prod(shape)} number(s) of shape {tuple(shape)}, got shape {arr.shape}"
    if not np.all(np.isfinite(arr)):
        return None, "the answer contains NaN or infinity"
    return arr, ""


class numeric:  # noqa: N801  (used like a function: grade=numeric(...))
    """A grader for numeric answers (one number or an array of them).

    ``reference()`` computes the reference answer (called once, then cached). An answer is right when every
    entry is within ``atol + rtol * |reference|``, close when within ``close_atol + close_rtol * |reference|``
    (``close_atol`` defaults to ``10 * atol``), and wrong otherwise. Close and wrong answers get the hints.
    Set the tolerances from how much the answer may honestly vary (another seed, another BLAS kernel, a
    different but correct way to compute it), and say why in a comment next to them.
    """

    def __init__(self, reference, *, rtol, close_rtol, atol=0.0, close_atol=None, hint_close, hint_wrong):
        if not callable(reference):
            raise TypeError("reference must be a function that computes the reference answer.")
        if not 0 <= rtol < close_rtol:
            raise ValueError(f"need 0 <= rtol < close_rtol, got rtol={rtol}, close_rtol={close_rtol}.")
        self.reference, self.rtol, self.close_rtol, self.atol = reference, float(rtol), float(close_rtol), float(atol)
        self.close_atol = 10 * self.atol if close_atol is None else float(close_atol)
        self.hint_close, self.hint_wrong = hint_close, hint_wrong
        self._value = None

    def value(self):
        """The reference answer as a float array (computed on first use)."""
        if self._value is None:
            self._value = np.asarray(self.reference(), dtype=float)
        return self._value

    def __call__(self, answer):
        ref = self.value()
        arr, problem = _as_numbers(answer, ref.shape)
        if arr is None:
            return "wrong", problem + "."
        err = np.abs(arr - ref)
        if np.all(err <= self.atol + self.rtol * np.abs(ref)):
            return "right", "right."
        if np.all(err <= self.close_atol + self.close_rtol * np.abs(ref)):
            return "close", "close, but not within the tolerance. Hint: " + self.hint_close
        return "wrong", "not right. Hint: " + self.hint_wrong


def _normalise(text):
    return re.sub(r"\s+", " ", str(text).strip().lower())


def answer_digest(exercise_id, text):
    """The salted digest under which a word or choice answer is stored (see :func:`choice`)."""
    return hashlib.sha256(f"tabular-trees:{exercise_id}:{_normalise(text)}".encode()).hexdigest()


def choice(exercise_id, right, *, close=None, hint_wrong, options=None):
    """A grader for an answer that is one word or option: ``right`` is the digest of the right answer.

    Answers are compared case- and whitespace-insensitively. ``close`` maps digests of near-misses to hints.
    ``options`` (shown on a wrong answer that is not among them) lists the admissible answers, if few.
    """
    close = dict(close or {})

    def grade(answer):
        if not isinstance(answer, str):
            return "wrong", f"this exercise expects a word or an option as a string, got {type(answer).__name__}."
        digest = answer_digest(exercise_id, answer)
        if digest == right:
            return "right", "right."
        if digest in close:
            return "close", "close. Hint: " + close[digest]
        if options is not None and _normalise(answer) not in {_normalise(o) for o in options}:
            return "wrong", f"answer with one of {', '.join(map(repr, options))}."
        return "wrong", "not right. Hint: " + hint_wrong

    return grade


# ------------------------------------------------------------------------------------------ declaring exercises


def numeric_exercise(exercise_id, level, title, *, expects, rtol, close_rtol, atol=0.0, close_atol=None, hints):
    """Declare a numeric exercise whose reference answer the decorated function computes.

    The decorator registers ``Exercise(exercise_id, level, title, numeric(function, ...), expects=expects)``
    and returns the function unchanged, so a chapter module states each exercise once, above the function
    that computes its reference. The tolerances mean what they mean for :class:`numeric`; ``hints`` is the
    chapter's table ``{exercise_id: (hint when close, hint when wrong)}``, where the student-facing text of
    all its exercises is kept together.

    Examples
    --------
    >>> from tabular_trees.exercises import _core
    >>> hints = {"99.1": ("keep more digits.", "multiply.")}
    >>> @numeric_exercise("99.1", "apply", "twice two", expects="a number", rtol=1e-9, close_rtol=0.1, hints=hints)
    ... def _four():
    ...     return 2.0 * 2.0
    >>> _core.check("99.1", 4).verdict, _core.check("99.1", 4.2).verdict, _core.check("99.1", 5).message
    ('right', 'close', 'not right. Hint: multiply.')
    >>> del _core._REGISTRY["99.1"]  # the example's exercise is not one of the book's
    """
    if exercise_id not in hints:
        raise ValueError(f"hints has no entry for exercise {exercise_id}; add {exercise_id!r}: (hint when close, "
                         "hint when wrong) to the chapter's table.")
    hint_close, hint_wrong = hints[exercise_id]
    grading = dict(rtol=rtol, close_rtol=close_rtol, atol=atol, close_atol=close_atol, hint_close=hint_close,
                   hint_wrong=hint_wrong)

    def declare(reference):
        register(Exercise(exercise_id, level, title, numeric(reference, **grading), expects=expects))
        return reference

    return declare


def exact_integers(close_by=1):
    """Tolerances for an answer made of integers: right only when exact, close within ``close_by`` of each.

    Pass them on with ``**exact_integers(...)`` to :func:`numeric_exercise` (``atol=0.01`` accepts an integer
    written as a float; ``close_rtol`` must exceed ``rtol`` and plays no part).

    Examples
    --------
    >>> exact_integers(close_by=2)
    {'rtol': 0.0, 'close_rtol': 1e-09, 'atol': 0.01, 'close_atol': 2.0}
    """
    return {"rtol": 0.0, "close_rtol": 1e-9, "atol": 0.01, "close_atol": float(close_by)}


def word_exercise(exercise_id, level, title, *, expects, right, close=None, hint_wrong, options=None,
                  max_attempts=None):
    """Declare and register an exercise whose answer is a word or an option, stored as salted digests.

    ``right`` and the keys of ``close`` are :func:`answer_digest` values; see :func:`choice` for the grading.

    Examples
    --------
    >>> from tabular_trees.exercises import _core
    >>> ex = word_exercise("99.2", "understand", "a colour", expects="a word", right=answer_digest("99.2", "red"),
    ...                    hint_wrong="think of a ripe tomato.")
    >>> _core.check("99.2", " Red ").verdict, _core.check("99.2", "blue").message
    ('right', 'not right. Hint: think of a ripe tomato.')
    >>> del _core._REGISTRY["99.2"]  # the example's exercise is not one of the book's
    """
    grade = choice(exercise_id, right, close=close, hint_wrong=hint_wrong, options=options)
    return register(Exercise(exercise_id, level, title, grade, expects=expects, max_attempts=max_attempts))


def row_positions(value, name, n):
    """The sorted unique row positions a student's evidence names, or a ValueError naming ``name``."""
    rows = np.asarray(value).ravel()
    if rows.size == 0 or not np.issubdtype(rows.dtype, np.integer) or rows.min() < 0 or rows.max() >= n:
        raise ValueError(f"{name} must be a non-empty list of row positions into X (integers 0..{n - 1})")
    return np.unique(rows)
