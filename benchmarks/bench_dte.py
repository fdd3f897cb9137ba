"""Benchmark: decision tree embedding (DTE) against a 50-tree random forest, and the paper's Table I protocol.

Three measurements, all in one run (Shen, Dong & Priebe 2025; SPEC section 7 and 8.3):

1. **Speed.** DTE-1 (one tree + pseudo-inverse LDA) fit+predict time against
   ``RandomForestClassifier(n_estimators=50, n_jobs=1)`` on the same 5-fold splits of each
   dataset; the ratio RF / DTE-1 per dataset and its median (the paper reports about 9x
   against MATLAB's TreeBagger). DTE's time is split into tree growing and the LDA part.
2. **LDA cost versus the number of leaves.** DTE on digits with more and more leaves
   (more trees, smaller leaves): the share of the time spent in LDA, which grows like n m^2.
3. **Table I protocol.** 10 replicates of 5-fold cross-validation for DTE-1, DTE-3, a
   default tree, RF (50 trees), an MLP (100 hidden units, standardised), plain LDA and the
   nonlinear RBF anchor variants: error (%) mean and standard deviation across the 10
   replicate CV errors, and fit+predict time per fold.

Usage::

    python benchmarks/bench_dte.py              # full run (a few minutes on 2 cores)
    python benchmarks/bench_dte.py --quick      # smoke run (2 replicates, 1 timing repeat); writes nothing
    python benchmarks/bench_dte.py --no-write   # full run, printed only

A full run writes ``tabular_trees/_recorded/dte.json`` and ``benchmarks/results/dte.md``; a quick
run never replaces the recorded full run.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from tabular_trees import datasets as ttd
from tabular_trees.dte import DecisionTreeEmbedding, DTEClassifier, PseudoLinearDiscriminantAnalysis

from dte_paper_models import paper_models  # benchmarks/dte_paper_models.py
from harness import RECORDED, RESULTS, code_version, machine_description, machine_summary, timed  # benchmarks/harness.py

#: Table I of the paper (error %, mean and sd) for the datasets we also have offline.
PAPER = {
    "iris": {"m": 3, "DTE-1": (1.9, 0.3), "DTE-3": (2.1, 0.2), "Tree": (5.2, 1.1), "RF": (5.0, 0.7), "MLP": (5.5, 1.6)},
    "wine": {"m": 4, "DTE-1": (8.2, 1.2), "DTE-3": (2.4, 0.7), "Tree": (10.3, 1.2), "RF": (2.0, 0.6), "MLP": (2.4, 0.6)},
}


def load_mpea_phase():
    """MPEA phase (BCC / FCC / other): element fractions, descriptors, one-hot processing route."""
    X, y = ttd.load_mpea(target="phase")
    X = pd.get_dummies(X, columns=["processing"], dtype=float)  # the paper one-hot encodes categoricals
    return X.to_numpy(dtype=np.float64), np.asarray(y, dtype=str)


def load_all():
    """The offline classification datasets of the comparison (name -> (X, y))."""
    out = {
        "iris": load_iris(return_X_y=True),
        "wine": load_wine(return_X_y=True),
        "breast_cancer": load_breast_cancer(return_X_y=True),
        "digits": load_digits(return_X_y=True),
        "tic_tac_toe": ttd.make_tic_tac_toe(),
        "mpea_phase": load_mpea_phase(),
    }
    return out


def speed(data, repeats):
    """DTE-1 vs RF(50) fit+predict on the 5 folds of one 5-fold split, best of ``repeats``."""
    rows = {}
    for name, (X, y) in data.items():
        folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        t_dte = t_rf = t_tree = t_lda = 0.0
        for tr, te in folds:
            best = {"dte": np.inf, "rf": np.inf, "tree": np.inf, "lda": np.inf}
            for _ in range(repeats):
                # DTE-1 as one estimator (the number compared with RF)
                clf = DTEClassifier(standardize=False, random_state=0)  # the paper's map
                _, t = timed(lambda: clf.fit(X[tr], y[tr]).predict(X[te]))
                best["dte"] = min(best["dte"], t)
                # the same pipeline in two timed parts: tree growing, then embedding + LDA
                emb = DecisionTreeEmbedding(random_state=0)
                _, t1 = timed(lambda: emb.fit(X[tr], y[tr]))
                lda = PseudoLinearDiscriminantAnalysis()
                _, t2 = timed(lambda: lda.fit(emb.transform(X[tr]), y[tr]).predict(emb.transform(X[te])))
                best["tree"] = min(best["tree"], t1)
                best["lda"] = min(best["lda"], t2)
                rf = RandomForestClassifier(n_estimators=50, n_jobs=1, random_state=0)
                _, t = timed(lambda: rf.fit(X[tr], y[tr]).predict(X[te]))
                best["rf"] = min(best["rf"], t)
            t_dte += best["dte"]
            t_rf += best["rf"]
            t_tree += best["tree"]
            t_lda += best["lda"]
        m = int(DecisionTreeEmbedding(random_state=0).fit(X, y).n_leaves_[0])
        rows[name] = {
            "n": int(X.shape[0]),
            "p": int(X.shape[1]),
            "K": int(len(np.unique(y))),
            "m": m,
            "dte1_s": t_dte,
            "rf50_s": t_rf,
            "ratio_rf_over_dte1": t_rf / t_dte,
            "dte1_tree_s": t_tree,
            "dte1_lda_s": t_lda,
            "lda_share": t_lda / (t_tree + t_lda),
        }
        print(f"speed {name:14s} m={m:3d}  DTE-1 {t_dte*1e3:8.1f} ms  RF50 {t_rf*1e3:8.1f} ms  "
              f"ratio {t_rf/t_dte:5.1f}x  LDA share {rows[name]['lda_share']:.0%}")
    ratios = [r["ratio_rf_over_dte1"] for r in rows.values()]
    return rows, float(np.median(ratios))


def leaf_scaling(repeats, quick=False):
    """Share of DTE's time spent in LDA as the number of leaves m grows (digits, 80 % train)."""
    X, y = load_digits(return_X_y=True)
    tr, te = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    rows = []
    configs = [(1, 10), (3, 10), (10, 10), (10, 2)] + ([] if quick else [(30, 2)])
    for n_trees, leaf in configs:
        bt = bl = np.inf
        for _ in range(repeats):
            emb = DecisionTreeEmbedding(n_trees=n_trees, min_samples_leaf=leaf, random_state=0)
            _, t1 = timed(lambda: emb.fit(X[tr], y[tr]))
            lda = PseudoLinearDiscriminantAnalysis()
            pred, t2 = timed(lambda: lda.fit(emb.transform(X[tr]), y[tr]).predict(emb.transform(X[te])))
            bt, bl = min(bt, t1), min(bl, t2)
        rf = RandomForestClassifier(n_estimators=50, n_jobs=1, random_state=0)
        _, trf = timed(lambda: rf.fit(X[tr], y[tr]).predict(X[te]))
        m = int(emb.n_leaves_.sum())
        rows.append({"n_trees": n_trees, "min_samples_leaf": leaf, "m": m, "tree_s": bt, "lda_s": bl,
                     "lda_share": bl / (bt + bl), "rf50_s": trf, "error": float(np.mean(pred != y[te]))})
        print(f"leaves  t={n_trees:2d} leaf={leaf:2d} m={m:5d}  trees {bt*1e3:7.1f} ms  LDA {bl*1e3:7.1f} ms  "
              f"share {bl/(bt+bl):.0%}  (RF50 {trf*1e3:.0f} ms)")
    return rows


def table(data, n_reps):
    """Table I protocol: n_reps x 5-fold CV, error (%) mean/sd over replicates, time per fold."""
    out = {}
    for name, (X, y) in data.items():
        errs, times = {}, {}
        for rep in range(n_reps):
            folds = StratifiedKFold(5, shuffle=True, random_state=rep).split(X, y)
            wrong = {}
            for fold, (tr, te) in enumerate(folds):
                for mname, model in paper_models(random_state=1000 * rep + fold).items():
                    est = clone(model)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        pred, t = timed(lambda: est.fit(X[tr], y[tr]).predict(X[te]))
                    wrong[mname] = wrong.get(mname, 0) + int(np.sum(pred != y[te]))
                    times.setdefault(mname, []).append(t)
            for mname, w in wrong.items():
                errs.setdefault(mname, []).append(100.0 * w / len(y))
        out[name] = {
            mname: {"error_mean": float(np.mean(e)), "error_sd": float(np.std(e, ddof=1)) if len(e) > 1 else 0.0,
                    "time_per_fold_s": float(np.mean(times[mname]))}
            for mname, e in errs.items()
        }
        print(f"table {name:14s} " + "  ".join(f"{k} {v['error_mean']:.1f}±{v['error_sd']:.1f}" for k, v in out[name].items()))
    return out


def write_markdown(res, path):
    meta = res["meta"]
    lines = ["# Decision tree embedding benchmark", "",
             f"Run: {meta['date']} on {meta['machine_summary']} (numpy {meta['machine']['numpy']}, "
             f"scikit-learn {meta['machine']['scikit-learn']}), {'quick' if meta['quick'] else 'full'} mode; "
             f"code: {code_version()}.", "",
             "## DTE-1 vs RandomForestClassifier(n_estimators=50, n_jobs=1), fit + predict, 5 folds", "",
             "| dataset | n | p | K | m | DTE-1 (ms) | RF-50 (ms) | RF / DTE-1 | LDA share of DTE time |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in res["speed"].items():
        lines.append(f"| {name} | {r['n']} | {r['p']} | {r['K']} | {r['m']} | {r['dte1_s']*1e3:.1f} | "
                     f"{r['rf50_s']*1e3:.1f} | {r['ratio_rf_over_dte1']:.1f}x | {r['lda_share']:.0%} |")
    lines += ["", f"**Median ratio RF-50 / DTE-1: {res['median_ratio']:.1f}x** (paper: about 9x against MATLAB TreeBagger).",
              "", "## LDA cost as the number of leaves grows (digits, one 80/20 split)", "",
              "| trees | min leaf | m | trees (ms) | LDA (ms) | LDA share | RF-50 (ms) | test error |",
              "|---|---|---|---|---|---|---|---|"]
    for r in res["leaf_scaling"]:
        lines.append(f"| {r['n_trees']} | {r['min_samples_leaf']} | {r['m']} | {r['tree_s']*1e3:.1f} | "
                     f"{r['lda_s']*1e3:.1f} | {r['lda_share']:.0%} | {r['rf50_s']*1e3:.0f} | {r['error']:.3f} |")
    methods = list(next(iter(res["table"].values())))
    lines += ["", f"## Table I protocol ({res['meta']['n_reps']} x 5-fold CV): error % (sd over replicates)", "",
              "| dataset | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for name, t in res["table"].items():
        lines.append(f"| {name} | " + " | ".join(f"{t[m]['error_mean']:.1f} ± {t[m]['error_sd']:.1f}" for m in methods) + " |")
        if name in PAPER:
            lines.append(f"| {name} (paper) | " + " | ".join(
                f"{PAPER[name][m][0]:.1f} ± {PAPER[name][m][1]:.1f}" if m in PAPER[name] else "–" for m in methods) + " |")
    lines += ["", "Mean fit + predict time per fold (ms):", "",
              "| dataset | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for name, t in res["table"].items():
        lines.append(f"| {name} | " + " | ".join(f"{t[m]['time_per_fold_s']*1e3:.1f}" for m in methods) + " |")
    path.write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 2 CV replicates, 1 timing repeat; writes nothing")
    ap.add_argument("--no-write", action="store_true", help="print only; do not overwrite the recorded results")
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else 5
    n_reps = 2 if args.quick else 10
    data = load_all()
    # single-threaded BLAS for everyone: RF runs with n_jobs=1, and on a shared machine
    # multi-threaded BLAS calls (LDA's SVD) are slowed down by oversubscription
    with threadpool_limits(limits=1):
        return _run(args, data, repeats, n_reps)


def _run(args, data, repeats, n_reps):
    t0 = time.perf_counter()
    speed_rows, median_ratio = speed(data, repeats)
    print(f"median RF50 / DTE-1 ratio: {median_ratio:.1f}x")
    scaling = leaf_scaling(min(repeats, 2), quick=args.quick)
    tab = table(data, n_reps)
    res = {
        "meta": {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine_description(),
                 "machine_summary": machine_summary(), "blas_threads": 1, "quick": args.quick,
                 "timing_repeats": repeats, "n_reps": n_reps, "wall_s": None, "datasets": list(data)},
        "speed": speed_rows,
        "median_ratio": median_ratio,
        "leaf_scaling": scaling,
        "table": tab,
        "paper": PAPER,
    }
    res["meta"]["wall_s"] = time.perf_counter() - t0
    if args.no_write or args.quick:  # a smoke run never replaces the recorded full run
        print(f"done in {res['meta']['wall_s']:.0f} s (nothing written)")
        return res
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RECORDED / "dte.json").write_text(json.dumps(res, indent=2))
    write_markdown(res, RESULTS / "dte.md")
    print(f"wrote {RECORDED / 'dte.json'} and dte.md in {res['meta']['wall_s']:.0f} s")
    return res


if __name__ == "__main__":
    main()
