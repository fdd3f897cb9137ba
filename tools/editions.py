"""The two printed editions of the book (read by tools/book_ext.py, which builds them, and tools/check_pdf.py).

The student edition (the default) prints the introduction, chapters 1-10, the glossary and the references,
without solutions; the instructors' edition (``TABULAR_TREES_EDITION=instructors``) prints every page of the web
book, with the solutions. The HTML book always has every page.
"""

from __future__ import annotations

import os

EDITIONS = ("student", "instructors")
API_PAGE = "book/api"
# The pages only the instructors' edition prints: the appendix on our trees, the reproduction notes, the
# instructors' page, the API reference and the execution report.
INSTRUCTOR_PAGES = ("book/11_cart_equals_sklearn", "book/12_ntk_reproduction_notes", "book/13_dte_reproduction_notes",
                    "book/14_bayes_reproduction_notes", "book/instructors", API_PAGE, "book/execution")
EDITION_TARGETS = {"student": "tabular-trees.tex", "instructors": "tabular-trees-instructors.tex"}
EDITION_NAMES = {"student": "Student edition", "instructors": "Instructors' edition"}


def pdf_edition() -> str:
    """The edition a PDF build prints: ``TABULAR_TREES_EDITION`` (``student``, the default, or ``instructors``)."""
    edition = os.environ.get("TABULAR_TREES_EDITION", "student").strip().lower() or "student"
    if edition not in EDITIONS:
        raise ValueError(f"TABULAR_TREES_EDITION must be 'student' or 'instructors', got {edition!r}")
    return edition


def pages_left_out(edition: str) -> tuple[str, ...]:
    """The documents a PDF of ``edition`` leaves out."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be 'student' or 'instructors', got {edition!r}")
    return INSTRUCTOR_PAGES if edition == "student" else ()
