"""Where NUTS's leapfrog steps go in one RJHMC half-move: the warm-up against the adapted sampler.

At the paper's settings a half-move is k = 500 warm-up transitions and one draw, so the warm-up is nearly all of
the cost. For a posterior-sized tree (the last tree of a short chain) on the CGM data and on the collinear data of
``bench_bayes.py``, at h = 0.001 and one core, this measures per seed:

* ``cold``: leapfrog steps per warm-up transition from the unit inverse mass matrix (what the sampler does today);
* ``adapted``: leapfrog steps per transition of 200 draws after that warm-up (the cost once adapted);
* ``warm``: the warm-up again, with another seed, started from the cold run's adapted inverse mass
  (``run_tree_nuts(..., inverse_mass=...)``), each window shrinking its estimate towards 10⁻³ as Stan does;
* ``carried``: the same, with each window shrinking towards the mass in use with a weight of 10 draws
  (``mass_prior_weight=10``), which is what ``RJHMCSettings(carry_mass=True)`` does between half-moves.

The last row repeats the CGM HMC-DFI cell with the softness ramp of Table 4 (h from 0.01 to 0.001 within each
warm-up, as every HMC-DFI half-move of the paper protocol runs), where the carried mass was adapted at the end of a
ramp, so at h = 0.001, and starts a warm-up at h = 0.01.

Usage: python benchmarks/profile_nuts_warmup.py [--seeds 3] [--no-write]  (a few minutes on one core)
Writes benchmarks/results/nuts_warmup.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_bayes import make_collinear
from harness import RESULTS, machine_summary, minmax_scale

from tabular_trees.bayes import NUTSSettings, RJHMCSettings, TreePosterior, TreePrior, rjhmc_chain, run_tree_nuts
from tabular_trees.datasets import make_cgm

K, H = 500, 0.001
CELLS = {  # data: (task, prior, h_init of the chain that finds a posterior-sized tree per method)
    "cgm": ("regression", TreePrior(alpha=0.45, beta=2.5), {"hmc-df": 0.001, "hmc-dfi": 0.01}),
    "collinear": ("classification", TreePrior(alpha=0.95, beta=1.0), {"hmc-df": 0.05, "hmc-dfi": 0.05}),
}


def load(name):
    if name == "cgm":
        X, y, _, _ = make_cgm(random_state=0)
    else:
        X, y = make_collinear(random_state=0)
    return minmax_scale(X), y


def measure(name, method, n_seeds, ramp_from=H):
    """The four warm-ups of one cell; ``ramp_from`` > h ramps the softness from it to h in every warm-up."""
    task, prior, h_init = CELLS[name]
    X, y = load(name)
    post = TreePosterior(X, y, task, use_simplex=method == "hmc-dfi", prior=prior)
    chain = rjhmc_chain(post, n_iter=60, n_burnin=30, seed=0,
                        sampler=RJHMCSettings(k_warmup=100, h_init=h_init[method], h_final=H))
    tree = chain.trees[-1]
    theta = post.pack(tree, chain.sigmas[-1] if task == "regression" else None)
    settings = NUTSSettings(n_warmup=K, h_init=ramp_from, h_final=H)
    out = dict(data=name, method=method, leaves=int(tree.n_leaves), dim=int(theta.size), seeds=[],
               h=f"{ramp_from:g} → {H:g}" if ramp_from != H else f"{H:g}")
    for seed in range(n_seeds):
        t0 = time.perf_counter()
        cold = run_tree_nuts(post, tree, theta, settings=settings, n_samples=1, seed=2 * seed + 1)
        t1 = time.perf_counter()
        longer = run_tree_nuts(post, tree, theta, settings=settings, n_samples=201, seed=2 * seed + 1)
        t2 = time.perf_counter()
        warm = run_tree_nuts(post, tree, theta, settings=settings, n_samples=1, seed=2 * seed + 2,
                             inverse_mass=cold.stats.inverse_mass)
        t3 = time.perf_counter()
        carried = run_tree_nuts(post, tree, theta, settings=settings, n_samples=1, seed=2 * seed + 2,
                                inverse_mass=cold.stats.inverse_mass, mass_prior_weight=10.0)
        t4 = time.perf_counter()
        out["seeds"].append(dict(
            cold=cold.stats.n_leapfrog / (K + 1), cold_s=t1 - t0,
            adapted=(longer.stats.n_leapfrog - cold.stats.n_leapfrog) / 200,
            warm=warm.stats.n_leapfrog / (K + 1), warm_s=t3 - t2,
            carried=carried.stats.n_leapfrog / (K + 1), carried_s=t4 - t3))
        print(name, method, out["seeds"][-1], flush=True)
    return out


def write(rows, path):
    L = ["# NUTS warm-up against the adapted sampler (`python benchmarks/profile_nuts_warmup.py`)", "",
         f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine_summary()}; one core. "
         f"One half-move at the paper's settings: k = {K} warm-up transitions + 1 draw, h = {H} fixed, target "
         "acceptance 0.8, max tree depth 10; a posterior-sized tree (last tree of a 60-iteration chain). The last "
         "row ramps h within each warm-up as Table 4 does for HMC-DFI.", "",
         "| data | method | h in the warm-up | leaves | dim | leapfrog / warm-up transition, cold | "
         "leapfrog / transition, adapted | leapfrog / warm-up transition, warm-started mass | leapfrog / warm-up "
         "transition, carried (weight 10) | s per half-move, cold → carried |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["seeds"]

        def col(key, fmt="{:.0f}"):
            v = [x[key] for x in s]
            return f"{fmt.format(np.mean(v))} ({fmt.format(min(v))}–{fmt.format(max(v))})"

        L.append(f"| {r['data']} | {r['method']} | {r['h']} | {r['leaves']} | {r['dim']} | {col('cold')} | "
                 f"{col('adapted')} | "
                 f"{col('warm')} | {col('carried')} | {np.mean([x['cold_s'] for x in s]):.2f} → "
                 f"{np.mean([x['carried_s'] for x in s]):.2f} |")
    L += ["", f"Mean over {len(rows[0]['seeds'])} seeds (range in brackets). 'cold' is the default sampler (unit "
          "inverse mass at the start of every half-move); 'warm' starts the same warm-up from the inverse mass the "
          "cold run adapted, with Stan's window rule; 'carried' also shrinks each window's estimate towards the mass "
          "in use (weight 10 draws), as `RJHMCSettings(carry_mass=True)` does when it carries the mass from one "
          "half-move to the next. Whole chains with and without the option: [carry_mass.md](carry_mass.md)."]
    path.write_text("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    rows = [measure(name, method, a.seeds) for name in CELLS for method in ("hmc-df", "hmc-dfi")]
    rows.append(measure("cgm", "hmc-dfi", a.seeds, ramp_from=0.01))  # Table 4's HMC-DFI ramp
    if not a.no_write:
        write(rows, RESULTS / "nuts_warmup.md")
        print("wrote", RESULTS / "nuts_warmup.md")


if __name__ == "__main__":
    main()
