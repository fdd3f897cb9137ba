"""The student copies' install cell (tools/export_notebooks.py) decides by version, not by presence.

The cell is executed as generated, with ``importlib.metadata.version`` answering for a chosen environment
(e.g. a notebook service with LightGBM 4.5 preinstalled) and ``subprocess.check_call`` recording the pip
command instead of running it, so the test needs no network and changes nothing installed.
"""

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
exporter = importlib.util.module_from_spec(spec)
sys.modules.setdefault("export_notebooks", exporter)
spec.loader.exec_module(exporter)


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    out = tmp_path_factory.mktemp("students")
    chapters = [ROOT / "book" / "03_boosting.ipynb", ROOT / "book" / "06_tuning_calibration_uncertainty.ipynb"]
    copies = {p.name[:2]: json.loads(p.read_text()) for p in exporter.export(out, chapters)}
    return {ch: "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
            for ch, nb in copies.items()}


def run_cell(text, monkeypatch, installed, imported=("numpy",)):
    """Run an install cell where ``installed`` maps distribution -> version (None: not installed).

    The cell asks for a restart when it upgrades a module the kernel has already imported. Of the distributions in
    ``installed``, only those named in ``imported`` count as imported here, whatever other tests of this process
    imported before (the grader tests import lightgbm, for example).
    """
    for dist in installed:
        module = dist.replace("-", "_")
        if module not in imported:
            monkeypatch.delitem(sys.modules, module, raising=False)
    real = importlib.metadata.version

    def version(dist):
        if dist in installed:
            if installed[dist] is None:
                raise importlib.metadata.PackageNotFoundError(dist)
            return installed[dist]
        return real(dist)

    real_spec = importlib.util.find_spec
    gone = {dist.replace("-", "_") for dist, have in installed.items() if have is None}

    calls = []
    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in gone else real_spec(name, *a))
    monkeypatch.setattr(subprocess, "check_call", lambda cmd, *a, **k: calls.append(cmd))
    env = {}
    exec(compile(text, "install-cell", "exec"), env)
    return calls, env


def minimum(dist):
    """The book's minimum release of ``dist``, read from pyproject.toml independently of the exporter."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for req in project["dependencies"] + project["optional-dependencies"]["book"]:
        if req.split(">=")[0].strip().lower() == dist:
            return req.split(">=")[1].split(",")[0]
    raise KeyError(dist)


@pytest.mark.parametrize("chapter", ["03", "06"])
def test_an_old_lightgbm_is_upgraded(cells, chapter, monkeypatch, capsys):
    installed = {"lightgbm": "4.5.0", "tabular-trees-course": "0.2.0"}
    for dist in ("numpy", "scipy", "pandas", "scikit-learn", "matplotlib", "xgboost", "catboost", "optuna",
                 "mapie", "quantile-forest", "plotly", "threadpoolctl", "joblib", "ipython"):
        installed[dist] = "99.0"
    calls, _ = run_cell(cells[chapter], monkeypatch, installed)
    assert len(calls) == 1
    assert calls[0][1:4] == ["-m", "pip", "install"]
    assert calls[0][5:] == [f"lightgbm>={minimum('lightgbm')}"]  # only what is too old
    line = capsys.readouterr().out.strip()
    assert line == f"Setup: upgraded lightgbm>={minimum('lightgbm')} (was 4.5.0)"


def test_minimums_come_from_pyproject_and_cover_quantile_forest(cells):
    assert "'quantile_forest': ['quantile-forest', 'quantile-forest>=" in cells["06"]
    assert f"'lightgbm': ['lightgbm', 'lightgbm>={minimum('lightgbm')}', '{minimum('lightgbm')}']" in cells["06"]
    assert minimum("lightgbm") >= "4.7"  # LGBMRegressor.fit(eval_X=...) in chapters 3 and 6


def test_missing_installed_equal_or_newer_kept(cells, monkeypatch, capsys):
    installed = {"lightgbm": "4.7.0", "xgboost": "3.0.0rc1", "catboost": None, "tabular-trees-course": None}
    calls, _ = run_cell(cells["03"], monkeypatch, installed)
    assert len(calls) == 1
    args = calls[0][5:]
    assert f"catboost>={minimum('catboost')}" in args
    assert any(a.startswith("tabular-trees-course @ git+") for a in args)
    assert not any(a.startswith(("lightgbm", "xgboost")) for a in args)  # 4.7.0 == 4.7; 3.0.0rc1 > 2.0
    assert capsys.readouterr().out.startswith("Setup: installed catboost>=")


def test_release_numbers_compare_as_numbers(cells, monkeypatch):
    _, env = run_cell(cells["03"], monkeypatch, {"tabular-trees-course": "0.2.0"})
    release = env["release"]
    assert release("4.10.0") > release("4.7")
    assert release("4.7.0") == release("4.7") == release("4.7.0.post1")
    assert release("2.0.0rc1") == release("2")
    assert release("1.2.10") > release("1.2.8")


def test_an_upgrade_of_an_imported_module_asks_for_a_restart(cells, monkeypatch, capsys):
    installed = {"lightgbm": "4.5.0", "numpy": "1.26.4", "tabular-trees-course": "0.2.0"}
    run_cell(cells["03"], monkeypatch, installed)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "was 1.26.4" in out and "restart the kernel: numpy" in out
