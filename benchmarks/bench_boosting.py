"""Fit time of tabular_trees.boosting vs XGBoost (hist) and LightGBM at matched settings.

Problem: a synthetic regression task with 100 000 rows x 10 features (Friedman-1
style signal on 5 features, 5 noise features, Gaussian noise), 100 boosting
rounds, learning rate 0.1, depth 6, 255 bins per feature, L2 leaf penalty 1,
minimum child Hessian 1 (= one row for squared error), no row/column subsampling.

Matching (as close as the three libraries allow):

* ours: GradientBoostingRegressor(max_depth=6, max_bins=255) — depth-wise, single thread.
* XGBoost: tree_method="hist", grow_policy="depthwise", max_depth=6, max_bin=255,
  reg_lambda=1, min_child_weight=1, base_score=mean(y).
* LightGBM: leaf-wise with num_leaves=2**6=64 and max_depth=6 (so a full depth-6
  tree is reachable), max_bin=255, reg_lambda=1, min_sum_hessian_in_leaf=1,
  min_data_in_leaf=1, min_gain_to_split=0. LightGBM always grows leaf-wise.

Threads: 1 for every library (n_jobs=1 / nthread=1 / num_threads=1); with
``--two-threads`` XGBoost and LightGBM are also timed with 2 threads for
reference (ours is single-threaded). On a loaded machine OpenMP's spin-waiting
makes the 2-thread timings meaningless, hence opt-in.
Each timing is the median of ``--repeats`` fits after one warm-up fit (which
also triggers numba compilation; the compile time is reported separately).
Both wall-clock and process CPU time are recorded; for single-thread runs on
a shared machine the CPU-time ratio is the more stable figure.

Run ``python benchmarks/bench_boosting.py`` (``--quick`` for a smoke run).
Writes benchmarks/results/boosting.json and boosting.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from harness import RESULTS, machine_description, machine_summary, page_header, timed

from tabular_trees.boosting import GradientBoostingRegressor


def make_problem(n_samples, n_features, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n_samples, n_features))
    y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
         + rng.normal(0.0, 1.0, n_samples))
    return X, y


def median_fit(fit, repeats):
    """Median wall-clock and CPU (process) time of ``repeats`` fits (harness.timed), and the last model."""
    times, cpu = [], []
    model = None
    for _ in range(repeats):
        c0 = time.process_time()
        model, seconds = timed(fit)
        cpu.append(time.process_time() - c0)
        times.append(seconds)
    return statistics.median(times), times, statistics.median(cpu), model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run (20 000 rows, 20 rounds)")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--two-threads", action="store_true",
                        help="also time XGBoost and LightGBM with 2 threads (meaningful on a quiet machine only)")
    parser.add_argument("--no-write", action="store_true", help="do not write results files")
    args = parser.parse_args(argv)

    import lightgbm as lgb
    import xgboost as xgb

    n, p = (20_000, 10) if args.quick else (100_000, 10)
    rounds = 20 if args.quick else 100
    repeats = args.repeats or (1 if args.quick else 3)
    depth, bins, eta, lam, mcw = 6, 255, 0.1, 1.0, 1.0
    X, y = make_problem(n, p, seed=0)
    X_test, y_test = make_problem(20_000, p, seed=1)

    # Warm-up: numba compilation (cached on disk after the first ever run).
    _, warmup = timed(GradientBoostingRegressor(n_estimators=2, max_depth=depth, max_bins=bins).fit, X[:2000], y[:2000])

    def fit_ours():
        return GradientBoostingRegressor(n_estimators=rounds, learning_rate=eta, max_depth=depth, reg_lambda=lam,
                                         min_child_weight=mcw, max_bins=bins).fit(X, y)

    def fit_xgb(threads):
        def f():
            return xgb.XGBRegressor(n_estimators=rounds, learning_rate=eta, max_depth=depth, reg_lambda=lam,
                                    min_child_weight=mcw, max_bin=bins, tree_method="hist",
                                    grow_policy="depthwise", base_score=float(y.mean()), n_jobs=threads).fit(X, y)
        return f

    def fit_lgb(threads):
        def f():
            return lgb.LGBMRegressor(n_estimators=rounds, learning_rate=eta, max_depth=depth, num_leaves=2**depth,
                                     max_bin=bins, reg_lambda=lam, min_child_weight=mcw, min_child_samples=1,
                                     min_split_gain=0.0, subsample=1.0, colsample_bytree=1.0, n_jobs=threads,
                                     verbose=-1).fit(X, y)
        return f

    runs = {}
    todo = [("ours_1thread", fit_ours), ("xgboost_hist_1thread", fit_xgb(1)), ("lightgbm_1thread", fit_lgb(1))]
    if args.two_threads:
        todo += [("xgboost_hist_2threads", fit_xgb(2)), ("lightgbm_2threads", fit_lgb(2))]
    for name, fit in todo:
        fit()  # warm-up of each library at full size
        med, times, cpu, model = median_fit(fit, repeats)
        pred = model.predict(X_test)
        rmse = float(np.sqrt(np.mean((pred - y_test) ** 2)))
        runs[name] = {"median_fit_seconds": med, "fit_seconds": times, "median_fit_cpu_seconds": cpu,
                      "test_rmse": rmse}
        print(f"{name:24s} fit {med:8.3f} s wall, {cpu:8.3f} s CPU   test RMSE {rmse:.4f}")

    ours = runs["ours_1thread"]["median_fit_seconds"]
    ours_cpu = runs["ours_1thread"]["median_fit_cpu_seconds"]
    ratios = {
        "ours_over_xgboost_1thread": ours / runs["xgboost_hist_1thread"]["median_fit_seconds"],
        "ours_over_lightgbm_1thread": ours / runs["lightgbm_1thread"]["median_fit_seconds"],
        "ours_over_xgboost_1thread_cpu": ours_cpu / runs["xgboost_hist_1thread"]["median_fit_cpu_seconds"],
        "ours_over_lightgbm_1thread_cpu": ours_cpu / runs["lightgbm_1thread"]["median_fit_cpu_seconds"],
    }
    if args.two_threads:
        ratios["ours_1thread_over_xgboost_2threads"] = ours / runs["xgboost_hist_2threads"]["median_fit_seconds"]
        ratios["ours_1thread_over_lightgbm_2threads"] = ours / runs["lightgbm_2threads"]["median_fit_seconds"]
    for k, v in ratios.items():
        print(f"{k:38s} {v:6.2f}x")
    print(f"numba warm-up (compile or cache load): {warmup:.2f} s")

    result = {
        "benchmark": "boosting fit time",
        "quick": args.quick,
        "problem": {"n_samples": n, "n_features": p, "generator": "Friedman-1 signal + 5 noise features, seed 0",
                    "test_rows": 20_000},
        "settings": {"n_estimators": rounds, "learning_rate": eta, "max_depth": depth, "bins": bins,
                     "reg_lambda": lam, "min_child_weight": mcw,
                     "lightgbm": "num_leaves=64, max_depth=6 (leaf-wise), min_child_samples=1",
                     "xgboost": "tree_method=hist, grow_policy=depthwise, max_bin=255"},
        "repeats": repeats,
        "runs": runs,
        "ratios": ratios,
        "numba_warmup_seconds": warmup,
        "versions": {"xgboost": xgb.__version__, "lightgbm": lgb.__version__, "numpy": np.__version__},
        "machine": machine_description(),
    }
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "boosting.json").write_text(json.dumps(result, indent=2) + "\n")
        lines = [
            page_header("Boosting fit time: tabular_trees vs XGBoost and LightGBM"),
            f"{n:,} rows x {p} features, {rounds} rounds, learning rate {eta}, depth {depth}, {bins} bins, "
            f"lambda {lam}, min child Hessian {mcw}; median of {repeats} fit(s). "
            "LightGBM grows leaf-wise with num_leaves=64, max_depth=6. Generated by "
            "`benchmarks/bench_boosting.py`" + (" --quick" if args.quick else "") + ".",
            "",
            "| model | threads | fit time, wall (s) | fit time, CPU (s) | test RMSE |",
            "|---|---|---|---|---|",
        ]
        for name, r in runs.items():
            label, threads = name.rsplit("_", 1)
            lines.append(f"| {label} | {threads.replace('thread', '').replace('s', '')} | "
                         f"{r['median_fit_seconds']:.3f} | {r['median_fit_cpu_seconds']:.3f} | "
                         f"{r['test_rmse']:.4f} |")
        lines += ["", "Ratios > 1 mean tabular_trees is slower. CPU-time ratios are robust to other load on the "
                  "machine for the single-thread runs.", "", "| ratio | value |", "|---|---|"]
        lines += [f"| {k} | {v:.2f} |" for k, v in ratios.items()]
        lines += ["", f"Versions: xgboost {xgb.__version__}, lightgbm {lgb.__version__}; {machine_summary()}.", ""]
        (RESULTS / "boosting.md").write_text("\n".join(lines))
    return result


if __name__ == "__main__":
    main()
