"""Where does an RJHMC-Tree iteration spend its time?  NUTS statistics per half-move.

Runs one short chain per (method, data set) at the issue-15 profiling settings
(k = 100 NUTS warm-up steps + 1 draw per half-move, h 0.05 -> 0.001, one core) and
records, for every NUTS run of the chain (two per iteration), its wall time, the
number of leapfrog steps (= gradient evaluations), the adapted step size, the
mean acceptance statistic, the final inverse mass matrix and the tree size.
It also times one gradient evaluation of the compiled density on the chain's
last tree, to split the time into gradient work and everything else.

Usage: python benchmarks/profile_bayes.py [--n-iter 30] [--datasets collinear,bcw,cgm] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import tabular_trees.bayes.rjhmc as rjhmc_mod
from tabular_trees.bayes import TreePosterior, rjhmc_chain
from tabular_trees.bayes.posterior import _log_posterior_kernel
from tabular_trees.datasets import load_breast_cancer_original, make_cgm

from bench_bayes import make_collinear  # noqa: E402  (same folder)


def datasets(names):
    out = {}
    for name in names:
        if name == "collinear":
            X, y = make_collinear(random_state=0)
            out[name] = (X, y, "classification")
        elif name == "bcw":
            X, y = load_breast_cancer_original()
            out[name] = (X, y, "classification")
        elif name == "cgm":
            X, y, _, _ = make_cgm(random_state=0)
            out[name] = (X, y, "regression")
    return out


def gradient_seconds(post, tree, theta, h, n=2000):
    """Seconds per call of the compiled log-density + gradient (what one leapfrog step costs)."""
    left, right, feature = tree.left, tree.right, tree.feature
    int_pos, leaf_pos = post.positions(tree)
    grad = np.zeros_like(theta)
    args = (theta, grad, post.model, True, True, h, post.X, post.w, post.ysum, post.yss, post.ycnt, left, right,
            feature, int_pos, leaf_pos, post.hyp, post.alpha_cls)
    _log_posterior_kernel(*args)
    t0 = time.perf_counter()
    for _ in range(n):
        _log_posterior_kernel(*args)
    return (time.perf_counter() - t0) / n


def profile(name, X, y, task, method, n_iter, k, h0, h1, seed=0):
    Xs = (X - X.min(0)) / np.where(np.ptp(X, 0) > 0, np.ptp(X, 0), 1.0)
    post = TreePosterior(Xs, y, task, use_simplex=(method == "hmc-dfi"), alpha=0.95, beta=1.0)
    calls = []
    orig = rjhmc_mod.run_tree_nuts

    def timed(posterior, tree, theta0, **kw):
        t0 = time.perf_counter()
        res = orig(posterior, tree, theta0, **kw)
        info = res[3]
        calls.append(dict(seconds=time.perf_counter() - t0, n_leapfrog=info["n_leapfrog"],
                          step_size=float(info["step_size"]), accept_stat=float(info["accept_stat"]),
                          leaves=int(tree.n_leaves), dim=int(theta0.shape[0]),
                          inv_mass=np.asarray(info["inverse_mass"]).tolist()))
        return res

    rjhmc_mod.run_tree_nuts = timed
    try:
        rjhmc_chain(post, n_iter=2, n_burnin=2, seed=99, k_warmup=20, h_init=h0, h_final=h1)  # compile / cache
        calls.clear()
        t0 = time.perf_counter()
        out = rjhmc_chain(post, n_iter=n_iter, n_burnin=n_iter // 2, seed=seed, k_warmup=k, h_init=h0, h_final=h1)
        total = time.perf_counter() - t0
    finally:
        rjhmc_mod.run_tree_nuts = orig
    last = out["trees"][-1] if out["trees"] else None
    g_s = None
    if last is not None and last.n_leaves > 1:
        g_s = gradient_seconds(post, last, post.pack(last, 1.0), h1)
    leap = np.array([c["n_leapfrog"] for c in calls], float)
    per_transition = leap / (k + 1)
    eps = np.array([c["step_size"] for c in calls])
    acc = np.array([c["accept_stat"] for c in calls])
    secs = np.array([c["seconds"] for c in calls])
    res = dict(data=name, method=method, n_rows=int(X.shape[0]), n_unique_rows=int(post.X.shape[0]),
               n_features=int(X.shape[1]), k_warmup=k, h=(h0, h1), n_iter=n_iter, s_per_iteration=total / n_iter,
               mean_leaves=float(out["n_leaves"].mean()),
               leapfrog_per_transition_mean=float(per_transition.mean()),
               leapfrog_per_transition_median=float(np.median(per_transition)),
               approx_tree_depth=float(np.log2(per_transition.mean() + 1)),
               step_size_median=float(np.median(eps)), step_size_min=float(eps.min()),
               accept_stat_mean=float(acc.mean()), seconds_in_nuts=float(secs.sum()),
               seconds_per_leapfrog=float(secs.sum() / leap.sum()), gradient_seconds_last_tree=g_s,
               last_tree_leaves=None if last is None else int(last.n_leaves))
    if g_s is not None:
        res["gradient_share_estimate"] = None  # filled below from per-call sizes
    # share of NUTS time that is gradient evaluation: time a gradient on every tree size seen
    return res, calls, post


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-iter", type=int, default=30)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--h0", type=float, default=0.05)
    ap.add_argument("--h1", type=float, default=0.001)
    ap.add_argument("--datasets", default="collinear,bcw,cgm")
    ap.add_argument("--methods", default="hmc-df,hmc-dfi")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    for name, (X, y, task) in datasets(a.datasets.split(",")).items():
        for method in a.methods.split(","):
            res, calls, _ = profile(name, X, y, task, method, a.n_iter, a.k, a.h0, a.h1)
            rows.append(dict(summary=res, calls=calls))
            print(json.dumps({k: (round(v, 5) if isinstance(v, float) else v) for k, v in res.items()}), flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh)


if __name__ == "__main__":
    main()
