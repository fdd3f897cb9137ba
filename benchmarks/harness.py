"""What the benchmark scripts share: where results go, the machine description, timing, data scaling.

The scripts are run as ``python benchmarks/NAME.py`` (so this folder is on ``sys.path`` and they
``import harness``); a test that loads a script by path puts this folder on ``sys.path`` first.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
RECORDED = HERE.parent / "tabular_trees" / "_recorded"


def machine_description() -> dict:
    """Processor, logical CPUs, OS and library versions: what a recorded timing was measured on."""
    import numba
    import scipy
    import sklearn

    return {
        "processor": platform.processor() or platform.machine(),
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": numba.__version__,
    }


def machine_summary() -> str:
    """One line for a results page: processor and logical CPUs."""
    m = machine_description()
    return f"{m['processor']}, {m['logical_cpus']} logical CPUs"


def code_version() -> str:
    """The code a result was measured with, for a results page: the package version (no commit hash)."""
    import tabular_trees

    return f"tabular-trees {tabular_trees.__version__}"


def page_header(title: str) -> str:
    """The first lines of a results page: its title, then the date, machine and code version of the measurement."""
    from datetime import datetime, timezone

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"# {title}\n\nMeasured {when} on {machine_summary()}; code: {code_version()}.\n"


def write_section(page: Path, key: str, text: str, title: str) -> None:
    """Put ``text`` into the section ``key`` of the results page ``page`` (one page per script), replacing that
    section if the page has it and appending it otherwise; the page starts with ``# title`` when it is new.

    A section is delimited by the lines ``<!-- section: KEY -->`` and ``<!-- end section: KEY -->``.
    """
    start, end = f"<!-- section: {key} -->", f"<!-- end section: {key} -->"
    block = f"{start}\n{text.strip()}\n{end}\n"
    old = page.read_text(encoding="utf-8") if page.exists() else f"# {title}\n"
    if start in old and end in old:
        head, rest = old.split(start, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        new = head + block + ("\n" + after if after else "")
    else:
        new = old.rstrip("\n") + "\n\n" + block
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(new, encoding="utf-8")


def timed(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), wall seconds)``."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def best_of(fn, repeats: int) -> float:
    """Shortest wall time of ``repeats`` calls of ``fn()`` (the least disturbed by other work)."""
    return min(timed(fn)[1] for _ in range(int(repeats)))


def minmax_scale(X, *, constant_to=1.0):
    """Columns of ``X`` mapped to [0, 1] as the papers do; a constant column's range counts as ``constant_to``."""
    X = np.asarray(X, dtype=np.float64)
    rng = np.ptp(X, axis=0)
    return (X - X.min(axis=0)) / np.where(rng > 0, rng, constant_to)


def load_script(name: str):
    """Import ``benchmarks/NAME.py`` as a module (a script that another script or a test drives)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
