"""Where does an RJHMC-Tree iteration spend its time?  The profiles of the Bayesian sampler, one subcommand each.

``iterations`` runs one short chain per (method, data set) at the profiling settings
(k = 100 NUTS warm-up steps + 1 draw per half-move, h 0.05 -> 0.001, one core) and
records, for every NUTS run of the chain (two per iteration), its wall time, the
number of leapfrog steps (= gradient evaluations), the adapted step size, the
mean acceptance statistic, the final inverse mass matrix and the tree size, all from the
chain's observer (:class:`tabular_trees.bayes.ChainStep`). The time per leapfrog step is the
cost of one gradient of the compiled density plus NUTS's own vector work.

``evidence``: the cause (on the collinear data, one posterior-sized tree per
method): leapfrog steps per transition at h = 0.05, 0.01, 0.001; the same with the
collinear columns replaced by independent uniform ones (one exact size column kept);
and whether a dense mass matrix would help: the largest eigenvalue of the Fisher
matrix E[∇ log p ∇ log pᵀ] (from 500 draws of a long NUTS run) whitened by the
diagonal vs the full posterior covariance (the step size NUTS can take scales as
its inverse square root).

``rows``: cost against the number of rows (CGM data, six posterior-sized trees per method): the time
per leapfrog step at h = 0.001 with the data's 100 unique rows and with random subsets of them (the same
trees), and how many rows lie in some split's band (|z| ≤ 40, where the logistic is not saturated).
The part of a step's cost that does not fall with the rows (work per node and per step) bounds
what a kernel that skips the saturated rows could save.

Usage::

    python benchmarks/profile_bayes.py iterations [--n-iter 20] [--datasets collinear,bcw,cgm] [--json FILE]
    python benchmarks/profile_bayes.py evidence
    python benchmarks/profile_bayes.py rows

Each subcommand replaces its own section of benchmarks/results/bayes_profile.md (``iterations --json FILE`` also
writes every NUTS run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from bench_bayes import DATA, make_collinear
from harness import RESULTS, code_version, machine_summary, minmax_scale, write_section

from tabular_trees.bayes import NUTSSettings, RJHMCSettings, TreePosterior, TreePrior, rjhmc_chain, run_tree_nuts
from tabular_trees.datasets import load_breast_cancer_original, make_cgm

PRIOR = TreePrior(alpha=0.95, beta=1.0)  # the topology prior of every profiled posterior


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


def _nuts_calls(steps):
    """One row per NUTS run of the observed iterations (current tree, then proposal; after burn-in a rejected
    proposal's run is skipped, so such an iteration has one row)."""
    return [dict(seconds=n.seconds, n_leapfrog=n.n_leapfrog, step_size=float(n.step_size),
                 accept_stat=float(n.accept_stat), leaves=int(leaves), dim=int(n.inverse_mass.shape[0]),
                 inv_mass=np.asarray(n.inverse_mass).tolist())
            for s in steps for n, leaves in zip(s.nuts, (s.current_leaves, s.proposed_leaves))]


def profile(name, X, y, task, method, n_iter, k, h0, h1, seed=0):
    post = TreePosterior(minmax_scale(X), y, task, use_simplex=(method == "hmc-dfi"), prior=PRIOR)
    rjhmc_chain(post, n_iter=2, n_burnin=2, seed=99,
                sampler=RJHMCSettings(k_warmup=20, h_init=h0, h_final=h1))  # compile / cache
    steps = []
    t0 = time.perf_counter()
    out = rjhmc_chain(post, n_iter=n_iter, n_burnin=n_iter // 2, seed=seed, observer=steps.append,
                      sampler=RJHMCSettings(k_warmup=k, h_init=h0, h_final=h1))
    total = time.perf_counter() - t0
    calls = _nuts_calls(steps)
    last = out.trees[-1] if out.trees else None
    leap = np.array([c["n_leapfrog"] for c in calls], float)
    per_transition = leap / (k + 1)
    eps = np.array([c["step_size"] for c in calls])
    acc = np.array([c["accept_stat"] for c in calls])
    secs = np.array([c["seconds"] for c in calls])
    res = dict(data=name, method=method, n_rows=int(X.shape[0]), n_unique_rows=int(post.X.shape[0]),
               n_features=int(X.shape[1]), k_warmup=k, h=(h0, h1), n_iter=n_iter, s_per_iteration=total / n_iter,
               mean_leaves=float(out.n_leaves.mean()),
               leapfrog_per_transition_mean=float(per_transition.mean()),
               leapfrog_per_transition_median=float(np.median(per_transition)),
               approx_tree_depth=float(np.log2(per_transition.mean() + 1)),
               step_size_median=float(np.median(eps)), step_size_min=float(eps.min()),
               accept_stat_mean=float(acc.mean()), seconds_in_nuts=float(secs.sum()),
               seconds_per_leapfrog=float(secs.sum() / leap.sum()),
               last_tree_leaves=None if last is None else int(last.n_leaves))
    return res, calls, post


def _chain_end(post, h0, h1, seed=0):
    """The last state of a 20-iteration k = 100 chain: a posterior-sized tree (and its σ, for regression)."""
    out = rjhmc_chain(post, n_iter=20, n_burnin=10, seed=seed,
                      sampler=RJHMCSettings(k_warmup=100, h_init=h0, h_final=h1))
    return out.trees[-1], (float(out.sigmas[-1]) if post.task == "regression" else None)


ROW_COUNTS = (100, 50, 35, 20, 10)  # unique rows kept (the CGM data has 100)
BAND_Z = 40.0  # beyond |z| = 40 a split's logistic is exactly 0 or 1 in double precision


def _band_rows(tree, Xs, h):
    """Rows of ``Xs`` within the band |x·Δ − τ| ≤ 40 h of at least one of the tree's splits."""
    near = np.zeros(Xs.shape[0], dtype=bool)
    for n in tree.internal_nodes():
        proj = Xs @ tree.simplex[n] if tree.use_simplex else Xs[:, tree.feature[n]]
        near |= np.abs(proj - tree.threshold[n]) <= BAND_Z * h
    return int(near.sum())


def rows_cost(n_trees=6, h=0.001, n_warmup=200, n_samples=50):
    """µs per leapfrog step on the CGM data against the number of unique rows (the same trees, random row
    subsets), for both methods; best of two timings of the same NUTS run (seed 0)."""
    task, alpha, beta, h_start = DATA["cgm"]
    X, y, _, _ = make_cgm(random_state=0)
    Xs = minmax_scale(X)
    uniq, inverse = np.unique(Xs, axis=0, return_inverse=True)
    order = np.random.default_rng(0).permutation(len(uniq))
    settings = NUTSSettings(n_warmup=n_warmup, h_init=h)
    out = []
    for method in ("hmc-df", "hmc-dfi"):
        simplex = method == "hmc-dfi"
        prior = TreePrior(alpha=alpha, beta=beta)
        post = TreePosterior(Xs, y, task, use_simplex=simplex, prior=prior)
        ends = [_chain_end(post, h_start[method][0], h, seed=seed) for seed in range(1, n_trees + 1)]
        trees = [tree for tree, _ in ends]
        bands = [_band_rows(t, uniq, h) for t in trees]
        for n_rows in ROW_COUNTS:
            keep = np.isin(inverse.ravel(), order[:n_rows])
            sub = TreePosterior(Xs[keep], y[keep], task, use_simplex=simplex, prior=prior)
            secs, steps = 0.0, 0
            for tree, sigma in ends:
                runs = [run_tree_nuts(sub, tree, sub.pack(tree, sigma), settings=settings, n_samples=n_samples, seed=0)
                        for _ in range(2)]
                secs += min(r.stats.seconds for r in runs)
                steps += runs[0].stats.n_leapfrog
            out.append(dict(method=method, n_rows=n_rows, us_per_step=1e6 * secs / steps,
                            leaves=[int(t.n_leaves) for t in trees], band_rows=bands))
            print(out[-1], flush=True)
    return out


def evidence(h0=0.05):
    """Leapfrog steps vs h, a control without collinearity, and diagonal vs dense whitening."""
    X, y = make_collinear(random_state=0)
    rng = np.random.default_rng(5)
    X_ind = np.column_stack([X[:, 6]] + [rng.random(len(y)) for _ in range(6)])
    rows, fisher = [], []
    for label, XX in (("collinear", X), ("size column + 6 independent uniform columns", X_ind)):
        Xs = minmax_scale(XX)
        for method in ("hmc-df", "hmc-dfi"):
            post = TreePosterior(Xs, y, "classification", use_simplex=method == "hmc-dfi", prior=PRIOR)
            tree, _ = _chain_end(post, h0, 0.001)
            theta = post.pack(tree, None)
            steps = {}
            for h in (0.05, 0.01, 0.001):
                lf = [run_tree_nuts(post, tree, theta, settings=NUTSSettings(n_warmup=200, h_init=h), n_samples=50,
                                    seed=sd).stats.n_leapfrog / 250 for sd in range(2)]
                steps[h] = float(np.mean(lf))
            rows.append(dict(data=label, method=method, leaves=int(tree.n_leaves), steps=steps))
            print(rows[-1], flush=True)
            if label == "collinear":
                long = run_tree_nuts(post, tree, theta, settings=NUTSSettings(n_warmup=500, h_init=0.001),
                                     n_samples=1000, seed=1)
                s, info = long.samples, long.stats
                G = np.array([post.logp_grad(tree, th, 0.001)[1] for th in s[::2]])
                F = G.T @ G / len(G)
                C = np.cov(s.T)
                sd = np.sqrt(np.diag(C))
                R = C / np.outer(sd, sd)
                L = np.linalg.cholesky(C)
                fisher.append(dict(method=method, dim=int(s.shape[1]),
                                   leapfrog_per_transition=info.n_leapfrog / 1500,
                                   corr_condition=float(np.linalg.cond(R)),
                                   sqrt_lmax_diag=float(np.sqrt(np.linalg.eigvalsh(F * np.outer(sd, sd)).max())),
                                   sqrt_lmax_dense=float(np.sqrt(np.linalg.eigvalsh(L.T @ F @ L).max()))))
                print(fisher[-1], flush=True)
    return rows, fisher, frozen_delta(X, y, h0)


def frozen_delta(X, y, h0):
    """HMC-DFI's tree with every node's simplex Δ frozen: only τ (and the leaves) move, each node splitting on
    its fixed projection x·Δ (an HMC-DF posterior whose features are those projections)."""
    Xs = minmax_scale(X)
    post = TreePosterior(Xs, y, "classification", use_simplex=True, prior=PRIOR)
    tree, _ = _chain_end(post, h0, 0.001)
    inner = np.where(tree.left >= 0)[0]
    P = np.column_stack([Xs @ tree.simplex[n] for n in inner])
    post_p = TreePosterior(P, y, "classification", use_simplex=False, prior=PRIOR)
    frozen = tree.copy()
    frozen.use_simplex, frozen.n_features = False, P.shape[1]
    frozen.simplex = np.zeros((frozen.n_nodes, P.shape[1]))
    frozen.feature = np.zeros(frozen.n_nodes, dtype=np.int64)
    frozen.feature[inner] = np.arange(len(inner))
    out = []
    for h in (0.01, 0.001):
        settings = NUTSSettings(n_warmup=200, h_init=h)
        free = [run_tree_nuts(post, tree, post.pack(tree, None), settings=settings, n_samples=50,
                              seed=sd).stats.n_leapfrog / 250 for sd in range(2)]
        fix = [run_tree_nuts(post_p, frozen, post_p.pack(frozen, None), settings=settings, n_samples=50,
                             seed=sd).stats.n_leapfrog / 250 for sd in range(2)]
        out.append(dict(h=h, leaves=int(tree.n_leaves), free=float(np.mean(free)), frozen=float(np.mean(fix))))
        print(out[-1], flush=True)
    return out


def _measured():
    return (f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine_summary()}; code: "
            f"{code_version()}.")


def iterations_markdown(rows):
    L = ["## NUTS statistics per half-move (`python benchmarks/profile_bayes.py iterations`)", "", _measured(), "",
         "k = 100 NUTS warm-up steps + 1 draw per half-move, h 0.05 → 0.001 (Eq. 20 ramp), α = 0.95, β = 1, "
         "one chain from a stump, one core; CGM regression, the other two classification.", "",
         "| data | method | s / iteration | share in NUTS | leapfrog steps per transition (mean) | "
         "≈ NUTS tree depth | step size (median) | mean accept stat | µs per leapfrog step | "
         "mean leaves |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["summary"]
        tot = s["s_per_iteration"] * s["n_iter"]
        L.append(f"| {s['data']} | {s['method']} | {s['s_per_iteration']:.3f} | "
                 f"{100 * s['seconds_in_nuts'] / tot:.1f} % | {s['leapfrog_per_transition_mean']:.1f} | "
                 f"{s['approx_tree_depth']:.1f} | {s['step_size_median']:.4f} | {s['accept_stat_mean']:.2f} | "
                 f"{1e6 * s['seconds_per_leapfrog']:.1f} | {s['mean_leaves']:.2f} |")
    return "\n".join(L)


def evidence_markdown(ev):
    steps, fisher, frozen = ev
    L = ["## Evidence for the cause (collinear data, one posterior-sized tree per method; "
         "`python benchmarks/profile_bayes.py evidence`)", "", _measured(), "",
         "Leapfrog steps per NUTS transition (200 warm-up + 50 draws at fixed h, mean of 2 seeds):", "",
         "| data | method | leaves | h = 0.05 | h = 0.01 | h = 0.001 |", "|---|---|---|---|---|---|"]
    L += [f"| {r['data']} | {r['method']} | {r['leaves']} | " + " | ".join(f"{r['steps'][h]:.0f}" for h in
                                                                        (0.05, 0.01, 0.001)) + " |" for r in steps]
    L += ["", "Would a dense mass matrix help? (h = 0.001, 500 warm-up + 1000 draws; Fisher matrix whitened by the "
          "diagonal or by the full posterior covariance; NUTS's usable step size ∝ 1/√λ_max):", "",
          "| method | dim | leapfrog / transition | condition number of the posterior correlation | "
          "√λ_max, diagonal metric | √λ_max, dense metric |", "|---|---|---|---|---|---|"]
    L += [f"| {f['method']} | {f['dim']} | {f['leapfrog_per_transition']:.0f} | {f['corr_condition']:.1f} | "
          f"{f['sqrt_lmax_diag']:.1f} | {f['sqrt_lmax_dense']:.1f} |" for f in fisher]
    L += ["", "HMC-DFI with the simplices Δ frozen at a posterior draw (only τ and the leaves move; each node "
          "splits on its fixed projection x·Δ; HMC-DF's Gibbs step may swap a node to another node's projection). "
          "Leapfrog steps per transition (200 warm-up + 50 draws, mean of 2 seeds):", "",
          "| h | leaves | Δ free (HMC-DFI) | Δ frozen |", "|---|---|---|---|"]
    L += [f"| {r['h']} | {r['leaves']} | {r['free']:.0f} | {r['frozen']:.0f} |" for r in frozen]
    return "\n".join(L)


def rows_markdown(by_rows):
    L = ["## Cost against the number of rows (CGM data, h = 0.001; `python benchmarks/profile_bayes.py rows`)", "",
         _measured(), "",
         "Six posterior-sized trees per method (the last tree of a 20-iteration k = 100 chain, seeds 1–6, α = 0.45, "
         "β = 2.5); on each, NUTS with 200 warm-up steps + 50 draws at h = 0.001, on the data's 100 unique rows and "
         "on random subsets of them (the same subsets for both methods). µs per leapfrog step (one gradient plus "
         "NUTS's own vector work; for HMC-DF also the split-index updates between transitions), all six trees "
         "together, and in brackets as a share of the cost with all 100 rows:", "",
         "| method | " + " | ".join(f"{n} rows" for n in ROW_COUNTS) + " |", "|---|" + "---|" * len(ROW_COUNTS)]
    for method in ("hmc-df", "hmc-dfi"):
        rs = [r for r in by_rows if r["method"] == method]
        full = rs[0]["us_per_step"]
        L.append(f"| {method} | " + " | ".join(f"{r['us_per_step']:.2f} ({100 * r['us_per_step'] / full:.0f} %)"
                                               for r in rs) + " |")
    L += ["", "Rows of the 100 within 40 h of at least one split (where the split's logistic is not saturated), per "
          "tree: " + "; ".join(f"{m}: {', '.join(str(b) for b in next(r for r in by_rows if r['method'] == m)['band_rows'])}"
                               for m in ("hmc-df", "hmc-dfi")) + ".", "",
          _fixed_share(by_rows)]
    return "\n".join(L)


def _fixed_share(by_rows):
    """The sentence bounding what a kernel that visited only the rows near a split could save: the cost with 20
    and 35 of the 100 rows as a share of the cost with all of them."""
    full = {r["method"]: r["us_per_step"] for r in by_rows if r["n_rows"] == 100}
    share = [r["us_per_step"] / full[r["method"]] for r in by_rows if r["n_rows"] in (20, 35)]
    lo, hi = min(share), max(share)
    bands = [b for r in by_rows if r["n_rows"] == 100 for b in r["band_rows"]]
    return (f"The bands above hold {min(bands)}–{max(bands)} rows. With 20–35 of the 100 rows a step costs {100 * lo:.0f}–"
            f"{100 * hi:.0f} % of its cost with all of them. A kernel that visited only the rows near a split would "
            f"still pay roughly that, so it could make a step at most about {1 / hi:.1f}–{1 / lo:.1f}× cheaper, before "
            "the cost of tracking which rows are near a split.")


PAGE_TITLE = "Where an RJHMC-Tree iteration spends its time (`python benchmarks/profile_bayes.py`)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    it = sub.add_parser("iterations", help="NUTS statistics per half-move of short chains (the default profile)")
    it.add_argument("--n-iter", type=int, default=20)
    it.add_argument("--k", type=int, default=100)
    it.add_argument("--h0", type=float, default=0.05)
    it.add_argument("--h1", type=float, default=0.001)
    it.add_argument("--datasets", default="collinear,bcw,cgm")
    it.add_argument("--methods", default="hmc-df,hmc-dfi")
    it.add_argument("--json", default=None, help="also write every NUTS run to this file")
    sub.add_parser("evidence", help="leapfrog steps against h, without collinearity, dense metric, frozen simplices")
    sub.add_parser("rows", help="cost per leapfrog step against the number of rows (CGM data)")
    for p in sub.choices.values():
        p.add_argument("--out", default=str(RESULTS / "bayes_profile.md"),
                       help="the results page; the subcommand replaces its own section")
    a = ap.parse_args(argv)
    if a.command == "iterations":
        rows = []
        for name, (X, y, task) in datasets(a.datasets.split(",")).items():
            for method in a.methods.split(","):
                res, calls, _ = profile(name, X, y, task, method, a.n_iter, a.k, a.h0, a.h1)
                rows.append(dict(summary=res, calls=calls))
                print(json.dumps({k: (round(v, 5) if isinstance(v, float) else v) for k, v in res.items()}), flush=True)
        text = iterations_markdown(rows)
        if a.json:
            with open(a.json, "w") as fh:
                json.dump(rows, fh)
    elif a.command == "evidence":
        text = evidence_markdown(evidence())
    else:
        text = rows_markdown(rows_cost())
    print(text)
    write_section(Path(a.out), a.command, text, PAGE_TITLE)

if __name__ == "__main__":
    main()
