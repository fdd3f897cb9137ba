"""tools/check_pdf.py refuses what keeps the PDF from being a handout (each rule on the text that broke it before).

The full check runs on the built PDF in CI (the README's PDF command); these tests feed each rule the evidence
it reads: the LaTeX log, the PDF's text page by page, and the LaTeX source.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import check_pdf  # noqa: E402


def test_missing_characters_are_read_from_the_log():
    log = ("Overfull \\hbox (1.2pt too wide) in paragraph at lines 3--4\n"
           "Missing character: There is no ⧵ (U+29F5) in font [latinmodern-math.otf]:mode=base;script=math;!\n"
           "Missing character: There is no ⧵ (U+29F5) in font [latinmodern-math.otf]:mode=base;script=math;!\n")
    assert check_pdf.missing_characters(log) == [
        "missing character ⧵ (U+29F5) in font [latinmodern-math.otf]:mode=base;script=math; (2x)"]
    assert check_pdf.missing_characters("Output written on tabular-trees.xdv (243 pages).\n") == []


def test_placeholders_instead_of_pictures_are_found():
    text = ("Move the slider to change the depth.\n<IPython.core.display.HTML object>\n"
            "     <pandas.io.formats.style.Styler at 0x7f4a94b6ef90>\n")
    assert check_pdf.placeholders(text) == ["<IPython.core.display.HTML object>",
                                            "<pandas.io.formats.style.Styler at 0x7f4a94b6ef90>"]
    assert check_pdf.placeholders("<Figure size 640x480 with 1 Axes>") == []  # not an object repr we refuse
    assert check_pdf.placeholders("x < y and object > z") == []


def test_truncated_table_cells_are_found_and_code_ellipses_are_not():
    text = ("    claim                               ours\n"
            "0   the kernel bank is far faster (be...   0.31\n"
            "1   n_jobs=...  and  x[...]  and  f(...)  and  ...\n")
    assert check_pdf.truncated_cells(text) == ["0   the kernel bank is far faster (be...   0.31"]


def test_empty_chapters_are_found():
    full = "CHAPTER\n\nFIVE\n\nMESSY TABLES\n\n" + "A first page of text that teaches something. " * 6 + "\n\n85\n"
    empty = "CHAPTER\n\nNINETEEN\n\nREFERENCES\n\n\n\n\n231\n"
    assert check_pdf.empty_chapters([full, "Part I\n\nFoundations\n", ""]) == []
    assert check_pdf.empty_chapters([full, empty, "", "BIBLIOGRAPHY\n\n[1] Aiolli..."]) == [
        "page 2: the chapter 'References' is empty (0 characters on its first page)"]


def test_exercises_and_theorems_are_numbered_within_their_chapter():
    good = "\n".join([
        r"\part{Foundations}", r"\chapter{Bias}",
        r"\begin{sphinxadmonition}{note}{Theorem 1.1 (Bias–variance decomposition)}",
        r"\begin{sphinxadmonition}{note}{Exercise 1.1 (Which criterion)}",
        r"\begin{sphinxadmonition}{note}{Exercise 1.2 (Doubles the noise)}",
        r"\part{Research frontiers}", r"\chapter{Bagging}",
        r"\begin{sphinxadmonition}{note}{Exercise 2.1 (One)}", r"\begin{sphinxadmonition}{note}{Note}"])
    assert check_pdf.tex_numbering_problems(good) == []
    # numbered within sections (sphinx-jupyterbook-latex's numfig_secnum_depth = 2) or across the book
    assert check_pdf.tex_numbering_problems(good.replace("Exercise 1.2 ", "Exercise 1.11.2 ")) == [
        "Exercise 1.11.2 is exercise 2 of chapter 1: expected Exercise 1.2"]
    assert check_pdf.tex_numbering_problems(good.replace("Exercise 2.1 ", "Exercise 46 ")) == [
        "Exercise 46 is exercise 1 of chapter 2: expected Exercise 2.1"]
    assert check_pdf.tex_numbering_problems(good.replace("Exercise 2.1 ", "Exercise 3.1 ")) == [
        "Exercise 3.1 is exercise 1 of chapter 2: expected Exercise 2.1"]


def test_the_api_reference_is_left_out_of_the_handout_by_title():
    titles = check_pdf.chapter_titles()
    without = check_pdf.chapter_titles(exclude=(check_pdf.API_PAGE,))
    assert len(without) == len(titles) - 1
    api_title = [t for t in titles if t not in without]
    assert api_title and "api" in api_title[0].lower()
    parts = check_pdf.toc_parts(exclude=(check_pdf.API_PAGE,))
    assert sum(len(t) for _, t in parts) == len(without) - 1  # the root page is no chapter of a part


def test_verdicts_in_a_student_edition_and_hidden_checks_anywhere_are_refused():
    student = ("Exercise 7.2 (Which feature)\n  check(\"7.2\", answer_7_2)\n"
               "     ✓ Exercise 7.2: right. VEC and delta lead, as the text says.\n")
    assert check_pdf.is_student_edition(student)
    assert check_pdf.answer_problems(student, student=True) == [
        "verdict printed in a student edition: ✓ Exercise 7.2: right. VEC and delta lead, as the text says."]
    instructor = "Solution to Exercise 7.2\n  answer_7_2 = 'VEC'\n     ✓ Exercise 7.2: right.\n"
    assert not check_pdf.is_student_edition(instructor)
    assert check_pdf.answer_problems(instructor, student=False) == []
    assert check_pdf.answer_problems("  # Hidden checks of the text above\n", student=False) == [
        "hidden-check cell printed: # Hidden checks of the text above"]
    assert check_pdf.answer_problems("The hidden checks assert each claim.\n", student=True) == []
