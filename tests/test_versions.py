"""The version promises are written once: environment.yml repeats pyproject.toml's lower bounds, and the
classifiers name the Pythons CI tests (the lowest-versions and newest stages of .ci/run)."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _bounds(requirements):
    out = {}
    for req in requirements:
        match = re.match(r"\s*([A-Za-z0-9_.-]+)(?:\[[^]]*\])?\s*>=\s*([0-9][0-9.]*)", req.strip("\"' "))
        if match:
            out[match.group(1).lower().replace("_", "-")] = match.group(2)
    return out


def test_environment_yml_repeats_the_lower_bounds():
    extras = PROJECT["optional-dependencies"]
    pyproject = _bounds(PROJECT["dependencies"] + extras["book"] + extras["test"])
    lines = (ROOT / "environment.yml").read_text().splitlines()
    conda = _bounds(line.strip()[2:] for line in lines if line.strip().startswith("- "))
    shared = sorted(set(pyproject) & set(conda))
    assert len(shared) >= 15, shared
    assert {name: conda[name] for name in shared} == {name: pyproject[name] for name in shared}
    assert conda["python"] == PROJECT["requires-python"].removeprefix(">=")


def test_lightgbm_bound_has_eval_x():
    # chapters 3 and 6 pass eval_X= to LGBMRegressor.fit, which LightGBM has from 4.7
    bounds = _bounds(PROJECT["optional-dependencies"]["book"])
    assert tuple(map(int, bounds["lightgbm"].split("."))) >= (4, 7)


def test_ci_runs_the_lowest_and_newest_stages():
    ci = (ROOT / ".ci" / "run").read_text()
    assert '--resolution lowest-direct ".[test]"' in ci
    # the README stage on the newest Python (pyenv) under the Prescott kernel; the lowest stage offline
    assert "export PYENV_VERSION=" in ci and 'OPENBLAS_CORETYPE=Prescott bash -c "set -eo pipefail; $test_cmd"' in ci
    assert "$offline pytest --rootdir=" in ci
    floor = PROJECT["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {floor}" in PROJECT["classifiers"]
