"""One numbering: chapters, exercises, theorems and figures are numbered per chapter, equal to the check ids.

- The table of contents numbers every part and keeps counting across parts, so the page of ``book/NN_*`` is
  chapter NN (static, from ``_toc.yml`` and ``_config.yml``).
- A tiny book built with the repository's ``_toc.yml`` and numbering settings (stub pages, no execution, a few
  seconds) renders "Exercise NN.k" equal to its ``check("NN.k", ...)`` id, and ``tools/check_numbering.py`` finds
  no problem in it; the same script catches a wrong number, a check id that differs from the rendered one and a
  theorem numbered across the book.
- When the full book has been built (``_build/html``), its pages pass the same check.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _load_tool():
    spec = importlib.util.spec_from_file_location("check_numbering", ROOT / "tools" / "check_numbering.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_numbering = _load_tool()


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return toc, [entry["file"] for part in toc["parts"] for entry in part["chapters"]]


def test_chapters_are_numbered_as_their_files():
    toc, files = _toc_files()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert all(part.get("numbered") for part in toc["parts"]), "every part of _toc.yml needs 'numbered: true'"
    # Jupyter Book counts on across parts (sphinx-multitoc-numbering) unless html.use_multitoc_numbering is false.
    assert (config.get("html") or {}).get("use_multitoc_numbering", True), "numbering would restart in each part"
    assert "numfig_secnum_depth" not in (config.get("sphinx", {}).get("config") or {}), "numbers are NN.k"
    for position, name in enumerate(files, start=1):
        match = check_numbering.CHAPTER_RE.match(Path(name).name)
        if match:
            assert int(match.group(1)) == position, f"{name} is chapter {position} of the table of contents"


def _stub_book(tmp_path: Path) -> Path:
    """The repository's table of contents and numbering settings with stub pages: two exercises with their
    check cells and a theorem on each chapter page."""
    book = tmp_path / "tiny"
    book.mkdir()
    shutil.copy(ROOT / "_toc.yml", book / "_toc.yml")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    tiny = {"title": "tiny", "only_build_toc_files": True, "execute": {"execute_notebooks": "off"},
            "html": config.get("html", {}),
            "sphinx": {"extra_extensions": ["sphinx_proof", "sphinx_exercise"]}}
    (book / "_config.yml").write_text(yaml.safe_dump(tiny), encoding="utf-8")
    toc, files = _toc_files()
    for name in [toc["root"], *files]:
        page = book / (name + ".md")
        page.parent.mkdir(parents=True, exist_ok=True)
        match = check_numbering.CHAPTER_RE.match(Path(name).name)
        text = f"# Page {Path(name).name}\n\nText.\n"
        if match:
            nn = int(match.group(1))
            text += f"\n```{{prf:theorem}} A theorem\n:label: thm-{nn}\n\nTrue.\n```\n"
            for k in (1, 2):
                text += (f"\n```{{exercise}} Exercise {k}\n:label: ex-{nn}-{k}\n\nDo it.\n```\n\n"
                         f"```python\ncheck(\"{nn}.{k}\", answer_{nn}_{k})\n```\n")
        page.write_text(text, encoding="utf-8")
    return book


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory):
    book = _stub_book(tmp_path_factory.mktemp("numbering"))
    result = subprocess.run([sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build",
                             str(book), "--builder", "html"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return book / "_build" / "html"


def test_tiny_book_renders_exercise_numbers_equal_to_their_check_ids(tiny_site):
    page = (tiny_site / "book" / "08_tree_ntk.html").read_text(encoding="utf-8")
    titles = [check_numbering._text(t) for t in check_numbering._TITLE_RE.findall(page)]
    assert [t for t in titles if t.startswith(("Exercise", "Theorem"))] == [
        "Theorem 8.1 (A theorem)", "Exercise 8.1 (Exercise 1)", "Exercise 8.2 (Exercise 2)"]
    assert check_numbering.check_site(tiny_site) == []


def test_check_catches_a_wrong_number(tiny_site):
    page = (tiny_site / "book" / "08_tree_ntk.html").read_text(encoding="utf-8")
    assert check_numbering.numbering_problems(page, 8) == []
    # numbered across the book (what the HTML showed before the chapters were numbered)
    across = page.replace("Exercise 8.2", "Exercise 46")
    assert any("expected Exercise 8.2" in p for p in check_numbering.numbering_problems(across, 8))
    # the check cell names another exercise than the one rendered
    wrong_check = re.sub(r'("|&quot;)8\.2("|&quot;)', r"\g<1>8.3\g<2>", page)
    assert any('check("8.3")' in p for p in check_numbering.numbering_problems(wrong_check, 8))
    assert any("Theorem 5 " in p for p in check_numbering.numbering_problems(page.replace("Theorem 8.1", "Theorem 5"), 8))
    assert any("chapter number" in p for p in check_numbering.numbering_problems("<h1>No number</h1>", 8))


def test_exercise_ids_in_the_sources_follow_the_exercises():
    """Static twin of the HTML check: the k-th {exercise} of book/NN_* is followed by check("NN.k") before the
    next one (what Sphinx numbers NN.k, see test_chapters_are_numbered_as_their_files)."""
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        nn = int(path.name[:2])
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        events = []
        for cell in cells:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                events += ["exercise" for block in re.findall(r"^[`:]{3,}\{exercise\}.*?$(.*?)^[`:]{3,}$", source,
                                                               flags=re.S | re.M) if ":nonumber:" not in block]
            elif "remove-cell" not in cell.get("metadata", {}).get("tags", []):
                events += re.findall(r"""\bcheck\(\s*["'](\d+\.\d+)["']""", source)
        k, named = 0, {}
        for event in events:
            if event == "exercise":
                k += 1
            elif k:
                named.setdefault(k, event)
        assert nn > 10 or k >= 6, f"{path.name}: {k} exercises found"
        # (an exercise without a check cell, as on the reference pages, is left to test_book_structure.py)
        assert all(ident == f"{nn}.{i}" for i, ident in named.items()), (path.name, named)
        assert k >= len(named)


def test_full_build_if_present():
    site = ROOT / "_build" / "html"
    if not (site / "book").is_dir():
        pytest.skip("the book has not been built here (_build/html)")
    assert check_numbering.check_site(site) == []


def test_a_papers_number_in_a_title_must_be_named_as_the_papers():
    page = ('<p class="admonition-title">Theorem 8.1 (NTK of oblique soft tree ensembles (Theorem 2.1))</p>'
            '<p class="admonition-title">Theorem 8.2 (NTK of axis-aligned ensembles (the paper\'s Theorem 3.1))</p>'
            '<p class="admonition-title">Exercise 8.1 (Symmetries of a kernel)</p>')
    warnings = check_numbering.paper_number_warnings(page)
    assert len(warnings) == 1 and "Theorem 2.1" in warnings[0]
