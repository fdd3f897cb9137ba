"""Chapters are stored without outputs, and every chapter listed in the table of contents exists."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))
import clean_notebooks  # noqa: E402


def test_there_are_chapters():
    assert NOTEBOOKS, "no chapter notebooks found in book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_clean(path):
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name}: cell {i} has outputs; run tools/clean_notebooks.py"
            assert cell.get("execution_count") is None, f"{path.name}: cell {i} has an execution count"
    assert clean_notebooks.dumps(clean_notebooks.clean(nb)) == text, (
        f"{path.name} is not in canonical clean form; run `python tools/clean_notebooks.py`"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_python3_kernel_and_one_title(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    titles = [
        line
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if re.match(r"^# \S", line)
    ]
    assert len(titles) == 1, f"{path.name} must have exactly one '# ' title, found {titles}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_asserts_its_claims_in_hidden_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    hidden = [
        "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and "remove-cell" in c.get("metadata", {}).get("tags", [])
    ]
    assert any("assert" in src for src in hidden), f"{path.name} has no hidden cell asserting a claim"


def test_every_toc_entry_exists_and_every_chapter_is_listed():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    files = re.findall(r"file:\s*(\S+)", toc)
    for f in files:
        assert any((ROOT / (f + ext)).exists() for ext in (".md", ".ipynb")), f"_toc.yml lists missing {f}"
    for nb in NOTEBOOKS:
        assert f"book/{nb.stem}" in files, f"{nb.name} is not listed in _toc.yml"


def test_clean_tool_check_mode_passes():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "clean_notebooks.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


def test_clean_is_idempotent_and_strips_outputs():
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": ["1 + 1"],
                "metadata": {"tags": ["remove-cell"], "scrolled": True},
                "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["2"]}}],
                "execution_count": 3,
            }
        ],
        "metadata": {"kernelspec": {"name": "python3"}, "widgets": {"x": 1}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    once = clean_notebooks.clean(nb)
    assert once["cells"][0]["outputs"] == [] and once["cells"][0]["execution_count"] is None
    assert once["cells"][0]["metadata"] == {"tags": ["remove-cell"]}
    assert "widgets" not in once["metadata"]
    assert clean_notebooks.dumps(clean_notebooks.clean(once)) == clean_notebooks.dumps(once)
