"""The test run hands the chapters it executed to the book build (conftest.py): a chapter whose every cell
passed under nbval lands in the book's jupyter-cache with its outputs, matched the way myst-nb matches it,
and a chapter with a failing cell does not (the build then executes it itself).

Each case runs pytest in a subprocess on a two-cell notebook inside a throwaway copy of the book's layout
(``_config.yml`` and ``book/``), with this repository's conftest.py."""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]


def _run_chapter(tmp_path, second_cell, folder="book"):
    """pytest (nbval) on a two-code-cell chapter in tmp_path/folder; a book has a _config.yml at tmp_path."""
    (tmp_path / folder).mkdir()
    if folder == "book":
        (tmp_path / "_config.yml").write_text("title: throwaway\n")
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter"),
                nbformat.v4.new_code_cell("x = 6 * 7\nprint('first'); print('second')"),
                nbformat.v4.new_code_cell(second_cell)]
    path = tmp_path / folder / "chapter.ipynb"
    nbformat.write(nb, path)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
                          "--nbval-current-env", f"--rootdir={tmp_path}", f"{folder}/chapter.ipynb"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return run, nbformat.read(path, as_version=4), get_cache(str(tmp_path / "_build" / ".jupyter_cache"))


def test_a_passing_chapter_is_cached_with_its_outputs(tmp_path):
    run, source, cache = _run_chapter(tmp_path, "x")
    assert run.returncode == 0, run.stdout + run.stderr
    record = cache.match_cache_notebook(source)  # the lookup myst-nb makes before executing
    assert record.data["execution_seconds"] > 0
    _, merged = cache.merge_match_into_notebook(source)
    first, second = (cell for cell in merged.cells if cell.cell_type == "code")
    assert [cell.execution_count for cell in (first, second)] == [1, 2]
    # consecutive prints arrive as one stream (the book renders it so too: nb_merge_streams in _config.yml)
    assert [(o.output_type, o.text) for o in first.outputs] == [("stream", "first\nsecond\n")]
    assert second.outputs[0].output_type == "execute_result"
    assert second.outputs[0].data["text/plain"] == "42"
    assert merged.metadata["language_info"]["name"] == "python"
    nbformat.validate(merged)


def test_a_chapter_with_a_failing_cell_is_not_cached(tmp_path):
    run, source, cache = _run_chapter(tmp_path, "assert x == 41, 'the hidden check fails'")
    assert run.returncode != 0
    with pytest.raises(KeyError):
        cache.match_cache_notebook(source)


def test_notebooks_outside_a_book_are_not_cached(tmp_path):
    run, _, _ = _run_chapter(tmp_path, "x", folder="chapters")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not (tmp_path / "_build").exists()
