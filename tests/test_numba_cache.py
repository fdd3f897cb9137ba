"""An edit to a compiled helper in one file takes effect in compiled callers in other files.

numba's ``cache=True`` keys a cached function on its own source file only, although the cached
code of a caller contains the code of the helpers it calls; ``tabular_trees`` keys it on a hash
of all of the package's sources (``tabular_trees/_numba_cache.py``). The test copies the package
to a temporary directory, runs a ``bayes`` function whose compiled code calls a helper from
another file (``run_tree_nuts`` for HMC-DFI: its engine in ``_nuts_kernels.py`` evaluates the log-density of
``_posterior_kernels.py``, which decodes each split's simplex with ``_stick_forward``), edits that helper and
runs it again in a fresh process. With numba's plain per-file keying the second run returns the stale
value (checked too, so the test shows what it guards against).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tabular_trees

SRC = Path(tabular_trees.__file__).resolve().parent
SCRIPT = """
import numpy as np
from tabular_trees.bayes import NUTSSettings, run_tree_nuts
from tabular_trees.bayes.posterior import TreePosterior
from tabular_trees.bayes.soft_split_tree import SoftTree
rng = np.random.default_rng(0); X = rng.random((20, 2)); y = rng.normal(size=20)
post = TreePosterior(X, y, "regression", use_simplex=True)
tree = SoftTree(2, use_simplex=True).grow(0, 1, 0.5, np.array([0.3, 0.7]), 0.3)
res = run_tree_nuts(post, tree, post.pack(tree, sigma=1.0), settings=NUTSSettings(n_warmup=5, h_init=0.1),
                    n_samples=1, seed=0)
print(repr(float(res.log_densities[0])))  # computed by the compiled engine of _nuts_kernels.py
"""


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
    return tmp_path, dst / "bayes" / "_posterior_kernels.py"


def _edit_helper(path):
    """Add 1 to the log-Jacobian that ``_stick_forward`` returns (so the log-density changes by 1)."""
    text = path.read_text()
    assert text.count("    return logj\n") == 1
    path.write_text(text.replace("    return logj\n", "    return logj + 1.0\n"))


@pytest.mark.parametrize("plain", [False, True], ids=["package-keyed", "plain-numba"])
def test_edit_of_compiled_helper_takes_effect_after_reimport(tmp_path, plain):
    root, helper = _copy(tmp_path)
    before = _run(root, plain)
    assert math.isfinite(before)
    assert list((helper.parent / "__pycache__").glob("_nuts_kernels.*.nbi")), "nothing was cached"
    _edit_helper(helper)
    after = _run(root, plain)
    if plain:
        # what the package-wide key prevents: _nuts_kernels.py did not change, its stale code runs
        assert after == before
    else:
        # the edited code: one split, so one log-Jacobian in the log-density, which grows by exactly 1 (a constant
        # shift leaves NUTS's trajectory unchanged); the tolerance allows the rounding of the added 1 in the sum
        assert math.isclose(after, before + 1.0, rel_tol=0.0, abs_tol=1e-9), (before, after)


def test_key_covers_every_source_file(tmp_path):
    from tabular_trees._numba_cache import package_source_hash

    _, helper = _copy(tmp_path)
    pkg = helper.parent.parent
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
