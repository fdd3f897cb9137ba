"""The recorded long runs that ship with the package (``tabular_trees/_recorded/``), read by name.

Re-exported by :mod:`tabular_trees.datasets` (import it from there).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

__all__ = ["load_recorded_run"]

# Every recorded run that ships with the package, and the chapters and notes pages that read it. A run ships only
# if a page of the book reads it (tests/test_recorded_runs.py checks this listing against the files and the
# notebooks); benchmark records that no page reads stay in the repository's ``benchmarks/results/``. ``name.json``
# holds the run; ``name_traces.npz``, where there is one, its per-iteration traces.
RECORDED_RUNS = {
    "dte": "chapter 9 (decision tree embedding; also its exercise 9.7) and notes page 13: "
           "bench_dte.py's speed and Table I runs",
    "ntk": "notes page 12: bench_ntk.py's kernel-bank timings",
    "rjhmc_paper": "chapter 10 (Tables 1 and 2, Figs. 3 and 4) and notes page 14: the paper protocol, k = 500",
    "rjhmc_paper_skip": "notes page 14: Table 1 at the paper protocol run whole with the current sampler, "
                        "1.81 CPU-hours, each chain against its rjhmc_paper twin",
    "rjhmc_paper_reference_start": "chapter 10 and notes page 14: the paper protocol with the authors' code's "
                                   "positional prune start",
    "rjhmc_long_table1": "notes page 14: Table 1 at the long protocol (k = 100), the quick reproduction",
    "rjhmc_long_reference_start": "notes page 14: the long protocol with the positional prune start",
    "rjhmc_long_numpyro_step_size": "notes page 14: the long protocol with NumPyro's step-size start",
    "rjhmc_long_random_walk_splits": "notes page 14: the long protocol with the random-walk split-index update",
    "rjhmc_miniature_seeds": "chapter 10 (its live miniature's seed) and notes page 14: the miniature over "
                             "seeds 0-4",
}


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
        The run's name, e.g. ``"dte"``, ``"ntk"``, ``"rjhmc_paper"``; the available names (and the
        pages that read each) are listed in ``RECORDED_RUNS`` of this module and in the error
        message for an unknown one.

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
