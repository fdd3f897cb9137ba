"""The recorded runs that ship with the package: exactly those a page of the book reads, each listed with its readers.

A recording ships (``tabular_trees/_recorded/``) only if a chapter or notes page loads it; benchmark records that no
page reads live in ``benchmarks/results/``. ``RECORDED_RUNS`` in ``tabular_trees/datasets/_recorded_runs.py`` lists
every shipped run with the pages that read it. These tests fail on a shipped run no page reads, on a listed run that
does not ship (or one that ships unlisted), on a traces file without its run, and on a ``load_recorded_run("...")``
anywhere in the repository that names a run that does not ship.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tabular_trees.datasets._recorded_runs import RECORDED_RUNS

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tabular_trees" / "_recorded"
LOAD_CALL = re.compile(r"""load_recorded_run\(\s*["']([A-Za-z0-9_]+)["']""")


def _shipped():
    return {p.stem for p in RECORDED.glob("*.json")}


def _notebook_code(path):
    """The code cells of a notebook, joined (markdown that only mentions a run does not read it)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def _read_by_the_book():
    """Run name -> the notebooks whose code names it as a quoted string (``load_recorded_run("x")`` or a list of
    names it loads in a loop)."""
    names = _shipped() | set(RECORDED_RUNS)
    readers = {}
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        code = _notebook_code(nb)
        for name in names:
            if re.search(rf"""["']{re.escape(name)}["']""", code):
                readers.setdefault(name, []).append(nb.name)
    return readers


def test_every_shipped_run_is_listed_and_every_listed_run_ships():
    shipped = _shipped()
    assert shipped, "no recorded runs found"
    assert sorted(shipped - set(RECORDED_RUNS)) == [], "shipped but not listed in RECORDED_RUNS"
    assert sorted(set(RECORDED_RUNS) - shipped) == [], "listed in RECORDED_RUNS but not shipped"
    for name, readers in RECORDED_RUNS.items():
        assert isinstance(readers, str) and ("chapter" in readers or "notes page" in readers), name


def test_every_traces_file_belongs_to_a_run_and_nothing_else_ships():
    for path in RECORDED.iterdir():
        if path.name.startswith((".", "__")):
            continue
        assert path.suffix in (".json", ".npz"), f"unexpected file in _recorded: {path.name}"
        if path.suffix == ".npz":
            assert path.name.endswith("_traces.npz") and (RECORDED / f"{path.name[:-len('_traces.npz')]}.json").exists(), \
                path.name


def test_every_shipped_run_is_read_by_a_page_of_the_book():
    readers = _read_by_the_book()
    unread = sorted(name for name in _shipped() if name not in readers)
    assert unread == [], f"recorded runs no chapter or notes page reads (move them to benchmarks/results): {unread}"


def test_every_loaded_run_name_in_the_repository_ships():
    shipped = _shipped()
    sources = [*(ROOT / "book").glob("*.ipynb"), *(ROOT / "benchmarks").glob("*.py"),
               *(ROOT / "tabular_trees").rglob("*.py")]
    missing = {}
    for path in sources:
        text = _notebook_code(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")
        for name in LOAD_CALL.findall(text):
            if name not in shipped:
                missing.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert missing == {}, f"load_recorded_run of a run that does not ship: {missing}"


@pytest.mark.parametrize("name", sorted(RECORDED_RUNS))
def test_each_listed_run_loads(name):
    from tabular_trees.datasets import load_recorded_run

    run = load_recorded_run(name)
    assert isinstance(run, dict) and run
    assert ("traces" in run) == (RECORDED / f"{name}_traces.npz").exists()


def test_the_package_data_stays_small():
    total = sum(p.stat().st_size for p in RECORDED.iterdir() if p.suffix in (".json", ".npz"))
    assert total < 400_000, f"the recorded runs take {total} bytes"
