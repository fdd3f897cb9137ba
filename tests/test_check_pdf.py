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


# --- print editions (tools/editions.py) and the checks added with them ---

def test_the_student_edition_leaves_the_instructors_pages_out_and_the_instructors_edition_keeps_all():
    import editions

    titles = check_pdf.chapter_titles()
    student = check_pdf.chapter_titles(exclude=editions.pages_left_out("student"))
    assert editions.pages_left_out("instructors") == ()
    left_out = [t for t in titles if t not in student]
    assert len(left_out) == len(editions.INSTRUCTOR_PAGES) == 7
    assert any("api" in t.lower() for t in left_out) and any("instructors" in t.lower() for t in left_out)
    # the student edition: the introduction, chapters 1-10, the glossary and the references
    parts = check_pdf.toc_parts(exclude=editions.pages_left_out("student"))
    assert [len(t) for _, t in parts] == [7, 3, 2]
    assert [t.lower() for t in parts[2][1]] == ["glossary", "references"]


def test_an_unknown_edition_is_refused(monkeypatch):
    import editions
    import pytest

    monkeypatch.setenv("TABULAR_TREES_EDITION", "teachers")
    with pytest.raises(ValueError, match="TABULAR_TREES_EDITION must be 'student' or 'instructors'"):
        editions.pdf_edition()
    monkeypatch.setenv("TABULAR_TREES_EDITION", "Instructors ")
    assert editions.pdf_edition() == "instructors"
    monkeypatch.delenv("TABULAR_TREES_EDITION")
    assert editions.pdf_edition() == "student"


_TABLE_TEX = "\n".join([
    r"\chapter{Boosting}",                                       # 1
    r"Some text with a long word.",                              # 2
    r"\begin{savenotes}\sphinxattablestart",                     # 3
    r"\begin{tabulary}{\linewidth}[t]{|T|T|}",                   # 4
    r"\sphinxAtStartPar", r"1.6723e+16", r"&", r"0.25", r"\\",    # 5-9
    r"\end{tabulary}",                                           # 10
    r"\sphinxattableend\end{savenotes}",                         # 11
    r"A paragraph after the table.",                             # 12
])


def test_overfull_boxes_in_tables_are_found_and_others_are_not():
    assert check_pdf.table_spans(_TABLE_TEX) == [(4, 10)]
    log = ("Overfull \\hbox (12.0pt too wide) in paragraph at lines 6--6\n []\\TU/FreeSerif 1.6723e+\n"
           "Overfull \\hbox (3.1pt too wide) in paragraph at lines 12--12\n"
           "Overfull \\hbox (0.4pt too wide) in alignment at lines 4--10\n"
           "Overfull \\vbox (0.6pt too high) detected at line 7\n")
    assert check_pdf.overfull_tables(log, _TABLE_TEX) == [
        "table wider than its box by 12.0 pt (LaTeX source lines 6-6)",
        "table wider than its box by 0.4 pt (LaTeX source lines 4-10)"]
    assert check_pdf.overfull_tables("Output written on tabular-trees.pdf (242 pages).\n", _TABLE_TEX) == []
    # a natural-width table in the fit box (tools/book_ext.py) is a table too
    fitted = _TABLE_TEX.replace(r"\begin{tabulary}{\linewidth}[t]{|T|T|}", r"\begin{TTfit}\begin{tabular}[t]{|l|l|}")
    fitted = fitted.replace(r"\end{tabulary}", r"\end{tabular}\end{TTfit}")
    assert check_pdf.table_spans(fitted) == [(4, 10)]


def test_raw_latex_and_myst_in_the_text_are_found_but_not_in_code():
    tex = "\n".join([
        r"\begin{document}",
        r"The proof: \textbackslash{}operatorname\{Cov\} of the two trees.",
        r"See \{numref\}\textasciigrave{}fig\sphinxhyphen{}ch1\textasciigrave{} for the curve.",
        r"\textasciigrave{}\textasciigrave{}\textasciigrave{}\{solution\} ch1\sphinxhyphen{}ex",
        r"\begin{sphinxVerbatim}[commandchars=\\\{\}]",
        r"ax.set_ylabel(r\PYG{l+s+s2}{\PYGZdq{}\PYGZdl{}\PYGZbs{}hat\PYGZob{}y\PYGZcb{}\PYGZdl{}\PYGZdq{}})",
        r"\end{sphinxVerbatim}",
        r"Inline code \sphinxcode{\sphinxupquote{\textbackslash{}frac}} is code.",
    ])
    kinds = [problem.split(" in the text")[0] for problem in check_pdf.raw_source(tex)]
    assert kinds == ["raw LaTeX", "MyST role or directive", "MyST role or directive", "MyST code fence"]
    clean = "\\begin{document}\nThe covariance $\\operatorname{Cov}$ of two trees (Fig.\\@ \\ref{fig}).\n"
    assert check_pdf.raw_source(clean) == []


def test_hyphenated_code_names_are_found_and_hyphenated_words_are_not():
    tex = (r"Set \sphinxcode{\sphinxupquote{DecisionTreeRegressor(ccp\_alpha=a, random\_state=0)}} and "
           r"\sphinxcode{\sphinxupquote{tabular\_trees.shapley}}, or \sphinxcode{\sphinxupquote{min\sphinxhyphen{}samples}}.")
    names = check_pdf.inline_code_names(tex)
    assert {"DecisionTreeRegressor", "ccp_alpha", "random_state", "tabular_trees.shapley", "min"} <= names
    text = ("compute the mean grouped CV RMSE of DecisionTreeRegressor(ccp_alpha=a, ran-\n"
            "dom_state=0) over the folds, and read tabu-\n"
            "lar_trees.shapley; the pre-\n"
            "dictions of a well-\n"
            "known tree, and min-\n"
            "samples in a leaf.\n")
    assert check_pdf.hyphenated_names(text, names) == [
        "code name hyphenated: ran- / dom_state", "code name hyphenated: tabu- / lar_trees.shapley"]
    assert check_pdf.hyphenated_names("the random_\nstate of the split\n", names) == []
