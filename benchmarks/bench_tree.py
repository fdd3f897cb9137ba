"""Benchmark: the numba CART of ``tabular_trees.tree`` against scikit-learn's tree (chapter 1).

Fit time of :class:`tabular_trees.tree.CARTRegressor` against
``sklearn.tree.DecisionTreeRegressor`` on a 100 000 x 10 regression problem (fixed seed),
fully grown (``max_depth=None``, the headline number) and at ``max_depth=10``, plus
:class:`~tabular_trees.tree.CARTClassifier` against ``DecisionTreeClassifier`` (Gini) on a
binary version of the same data. Both run single-threaded in the same process; each time
is the median of ``--repeats`` fits (default 5). The first call of the compiled kernels
(JIT compilation, or loading numba's on-disk cache) is timed separately and excluded.
Every pair of fitted trees is also checked to be identical (same node arrays), so the two
timings are for the same work.

Usage::

    python benchmarks/bench_tree.py            # 100 000 rows (about a minute on 2 cores)
    python benchmarks/bench_tree.py --quick    # 10 000 rows, 3 repeats (smoke run)
    python benchmarks/bench_tree.py --no-write # time only: print, write no file

Writes ``benchmarks/results/tree.json`` and ``benchmarks/results/tree.md`` (unless
``--no-write``). The machine description, timing and result folders come from ``harness.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from harness import RESULTS, machine_description, machine_summary, page_header, timed
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tabular_trees.tree import CARTClassifier, CARTRegressor


def make_problem(n_samples, n_features=10, seed=0):
    """Continuous regression data: a smooth signal in 3 of the features plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = np.sin(2.0 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n_samples)
    return X, y


_COLD_START = """
import time
t0 = time.perf_counter()
import numpy as np
from tabular_trees.tree import CARTClassifier, CARTRegressor
X = np.random.default_rng(1).normal(size=(200, 10)); y = X[:, 0]
CARTRegressor(max_depth=3).fit(X, y).predict(X)
CARTClassifier(max_depth=3).fit(X, (y > 0).astype(int)).predict(X)
print(time.perf_counter() - t0)
"""


def _tiny_fits():
    Xs, ys = make_problem(200, seed=1)
    CARTRegressor(max_depth=3).fit(Xs, ys).predict(Xs)
    CARTClassifier(max_depth=3).fit(Xs, (ys > 0).astype(int)).predict(Xs)


def cold_compile_time():
    """Import + first fits in a fresh process with an empty numba cache (pure JIT compile time)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        out = subprocess.run([sys.executable, "-c", _COLD_START], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _median_time(make_est, X, y, repeats):
    fits = [timed(make_est().fit, X, y) for _ in range(repeats)]
    times = [t for _, t in fits]
    return float(np.median(times)), times, fits[-1][0]


def _identical(a, b):
    a, b = a.tree_, b.tree_
    return bool(
        a.node_count == b.node_count
        and np.array_equal(a.children_left, b.children_left)
        and np.array_equal(a.children_right, b.children_right)
        and np.array_equal(a.feature, b.feature)
        and np.array_equal(a.threshold, b.threshold)
        and np.array_equal(a.n_node_samples, b.n_node_samples)
        and np.allclose(a.value, b.value, rtol=0, atol=1e-12)
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 000 rows and 3 repeats")
    parser.add_argument("--repeats", type=int, default=None, help="fits per timing (median reported)")
    parser.add_argument("--no-write", action="store_true", help="print the timings, write no file")
    args = parser.parse_args(argv)
    n = 10_000 if args.quick else 100_000
    repeats = args.repeats or (3 if args.quick else 5)
    X, y = make_problem(n)
    y_clf = (y > np.median(y)).astype(int)

    # first calls: JIT compilation (or numba cache load) of the kernels, on tiny data
    _, first_call_s = timed(_tiny_fits)
    print(f"first call in this process (compile or cache load): {first_call_s:.2f} s")
    compile_s = None if args.quick else cold_compile_time()
    if compile_s is not None:
        print(f"cold start with an empty numba cache (import + JIT compile + tiny fits): {compile_s:.2f} s")

    cases = [
        ("regression, max_depth=None", CARTRegressor, DecisionTreeRegressor, dict(), y),
        ("regression, max_depth=10", CARTRegressor, DecisionTreeRegressor, dict(max_depth=10), y),
        ("classification (gini), max_depth=None", CARTClassifier, DecisionTreeClassifier, dict(), y_clf),
    ]
    rows = []
    for label, Ours, Theirs, kw, target in cases:
        t_ours, all_ours, ours = _median_time(lambda: Ours(random_state=0, **kw), X, target, repeats)
        t_sk, all_sk, theirs = _median_time(lambda: Theirs(random_state=0, **kw), X, target, repeats)
        same = _identical(ours, theirs)
        rows.append(
            {
                "case": label,
                "tabular_trees_s": t_ours,
                "sklearn_s": t_sk,
                "ratio_ours_over_sklearn": t_ours / t_sk,
                "tabular_trees_all_s": all_ours,
                "sklearn_all_s": all_sk,
                "node_count": int(ours.tree_.node_count),
                "identical_trees": same,
            }
        )
        print(
            f"{label:40s} tabular_trees {t_ours:7.3f} s   scikit-learn {t_sk:7.3f} s   "
            f"ratio {t_ours / t_sk:5.2f}x   nodes {ours.tree_.node_count}   identical {same}"
        )

    result = {
        "benchmark": "CART fit time: tabular_trees.tree vs sklearn.tree",
        "n_samples": n,
        "n_features": X.shape[1],
        "repeats": repeats,
        "statistic": "median fit time (s)",
        "quick": bool(args.quick),
        "first_call_s": first_call_s,
        "cold_compile_s": compile_s,
        "cases": rows,
        "headline_ratio": rows[0]["ratio_ours_over_sklearn"],
        "machine": machine_description(),
    }
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "tree.json").write_text(json.dumps(result, indent=2) + "\n")
        (RESULTS / "tree.md").write_text(results_page(result))
        print(f"wrote {RESULTS / 'tree.json'} and {RESULTS / 'tree.md'}")
    return result


def results_page(result):
    """The Markdown page ``benchmarks/results/tree.md`` for a result of :func:`main`."""
    n, repeats, first_call_s, compile_s = (result["n_samples"], result["repeats"], result["first_call_s"],
                                           result["cold_compile_s"])
    lines = [
        page_header("CART fit time: `tabular_trees.tree` vs scikit-learn"),
        f"Data: {n:,} x {result['n_features']} continuous regression problem (seed 0); median of {repeats} fits, "
        "single thread, same process. Produced by `python benchmarks/bench_tree.py"
        + (" --quick`." if result["quick"] else "`."),
        f"First call of the compiled kernels in this process (JIT compile or cache load, excluded below): "
        f"{first_call_s:.2f} s."
        + (f" Cold start with an empty numba cache (import + compile, fresh process): {compile_s:.2f} s."
           if compile_s is not None else ""),
        "",
        "| case | tabular_trees (s) | scikit-learn (s) | ratio (ours / sklearn) | nodes | identical trees |",
        "|---|---:|---:|---:|---:|:---:|",
    ]
    for r in result["cases"]:
        lines.append(
            f"| {r['case']} | {r['tabular_trees_s']:.3f} | {r['sklearn_s']:.3f} | "
            f"{r['ratio_ours_over_sklearn']:.2f} | {r['node_count']} | {'yes' if r['identical_trees'] else 'NO'} |"
        )
    lines += [
        "",
        f"A ratio below 1 means the numba tree is faster. Machine: {machine_summary()}; versions: "
        + ", ".join(f"{k} {v}" for k, v in result["machine"].items() if k not in ("processor", "logical_cpus",
                                                                                 "platform"))
        + ".",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
