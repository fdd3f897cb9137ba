"""The recorded long runs that ship with the package (``tabular_trees/_recorded/``), read by name.

Re-exported by :mod:`tabular_trees.datasets` (import it from there).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

__all__ = ["load_recorded_run"]


def _recorded_files():
    return resources.files("tabular_trees") / "_recorded"


def load_recorded_run(name):
    """Return a recorded benchmark or reproduction run that ships with the package.

    Runs that take longer than a chapter may (the papers' full protocols, timings measured on a
    quiet machine) are recorded by the scripts in the repository's ``benchmarks/`` folder and
    shipped as package data, so the chapters that show them run from any directory. Each record
    says how it was made (its command, protocol and machine are among its keys).

    Parameters
    ----------
    name : str
        The run's name, e.g. ``"dte"``, ``"ntk"``, ``"rjhmc_paper"``; the available names are
        listed in the error message for an unknown one.

    Returns
    -------
    dict
        The run as its script wrote it (parsed JSON). Where the run saved per-iteration traces,
        the key ``"traces"`` holds them as a dict of NumPy arrays.

    Examples
    --------
    >>> from tabular_trees.datasets import load_recorded_run
    >>> run = load_recorded_run("dte")
    >>> sorted(run["paper"])[:2]
    ['iris', 'wine']
    """
    folder = _recorded_files()
    available = sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".json"))
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {available}; got {type(name).__name__}.")
    if name not in available:
        raise ValueError(f"name={name!r} is not a recorded run; choose one of {available}.")
    run = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    traces = folder / f"{name}_traces.npz"
    if traces.is_file():
        with traces.open("rb") as fh, np.load(fh) as npz:
            run["traces"] = {key: npz[key] for key in npz.files}
    return run
