"""An edit to a compiled helper in one file takes effect in compiled callers in other files.

numba's ``cache=True`` keys a cached function on its own source file only, although the cached
code of a caller contains the code of the helpers it calls; ``tabular_trees`` keys it on a hash
of all of the package's sources (``tabular_trees/_numba_cache.py``). The package's own call chain
across files is the NUTS engine (``_nuts_kernels._run_nuts`` evaluates the log-density of
``_posterior_kernels``); compiling it takes a minute, twice per check. The test therefore copies the
package to a temporary directory, adds two small modules to the copy (a compiled helper, and a compiled
caller in another file), runs the caller in a fresh process, edits the helper and runs it again. The
copy's modules are served by the same locator as every file of the package, so the check is the one the
engine relies on; a last test checks that the engine's functions are indeed cached through that locator.
With numba's plain per-file keying the second run returns the stale value (checked too, so the test
shows what it guards against).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tabular_trees

SRC = Path(tabular_trees.__file__).resolve().parent
HELPER = """
from numba import njit


@njit(cache=True)
def shift(x):
    return x + 1.0
"""
CALLER = """
from numba import njit

from ._probe_helper import shift


@njit(cache=True)
def doubled_shift(x):
    return 2.0 * shift(x)
"""
SCRIPT = "from tabular_trees._probe_caller import doubled_shift; print(repr(doubled_shift(1.0)))"


def _run(root, plain=False):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env["PYTHONPATH"] = str(root)
    env["TABULAR_TREES_PLAIN_NUMBA_CACHE"] = "1" if plain else "0"
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip().splitlines()[-1])


def _copy(tmp_path):
    dst = tmp_path / "tabular_trees"
    shutil.copytree(SRC, dst, ignore=shutil.ignore_patterns("__pycache__", "_recorded"))
    (dst / "_probe_helper.py").write_text(HELPER)
    (dst / "_probe_caller.py").write_text(CALLER)
    return tmp_path, dst / "_probe_helper.py"


def _edit_helper(path):
    """Make the helper add 2 instead of 1 (so the caller's result changes from 4 to 6)."""
    text = path.read_text()
    assert text.count("return x + 1.0\n") == 1
    path.write_text(text.replace("return x + 1.0\n", "return x + 2.0\n"))


@pytest.mark.parametrize("plain", [False, True], ids=["package-keyed", "plain-numba"])
def test_edit_of_compiled_helper_takes_effect_after_reimport(tmp_path, plain):
    root, helper = _copy(tmp_path)
    assert _run(root, plain) == 4.0
    assert list((helper.parent / "__pycache__").glob("_probe_caller.*.nbi")), "nothing was cached"
    _edit_helper(helper)
    # package-keyed: the edited helper runs; plain numba: _probe_caller.py did not change, its stale code runs
    assert _run(root, plain) == (4.0 if plain else 6.0)


def test_the_engine_is_cached_through_the_package_keyed_locator():
    from tabular_trees._numba_cache import KEY
    from tabular_trees.bayes._nuts_kernels import _run_nuts
    from tabular_trees.bayes._posterior_kernels import _log_posterior_ws

    if os.environ.get("TABULAR_TREES_PLAIN_NUMBA_CACHE", "") not in ("", "0"):
        pytest.skip("package-keyed caching switched off in this environment")
    assert KEY is not None
    for kernel in (_run_nuts, _log_posterior_ws):
        locator = kernel._cache._impl._locator  # numba's private cache API (tabular_trees/_numba_cache.py)
        assert type(locator).__name__.startswith("TabularTrees"), type(locator)
        assert locator.get_source_stamp()[1] == KEY


def test_key_covers_every_source_file(tmp_path):
    from tabular_trees._numba_cache import package_source_hash

    _, helper = _copy(tmp_path)
    pkg = helper.parent
    h0 = package_source_hash(pkg)
    assert package_source_hash(pkg) == h0
    _edit_helper(helper)
    assert package_source_hash(pkg) != h0


def test_boundscheck_setting_is_part_of_the_key(tmp_path):
    # numba keys its cache on the bytecode only, so NUMBA_BOUNDSCHECK=1 would reuse unchecked code
    code = "import tabular_trees._numba_cache as c; print(c.package_source_hash())"
    keys = []
    for flag in ("0", "1"):
        env = {**os.environ, "NUMBA_BOUNDSCHECK": flag}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        keys.append(out.stdout.strip())
    assert keys[0] != keys[1]
