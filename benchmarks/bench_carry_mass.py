"""Carrying the adapted mass matrix between NUTS runs (``RJHMCSettings(carry_mass=True)``): leapfrog steps saved.

Whole RJHMC-Tree chains on the CGM data at the paper's settings (k = 500, Table 4's h: HMC-DF 0.001, HMC-DFI
0.01 → 0.001, α = 0.45, β = 2.5), from the reference implementation's stump, with and without the option, same
seeds. The option carries the mass after burn-in only, so the two chains of a seed share their burn-in bit for bit
and only the iterations after it are compared. The two chains can then visit different trees, and a NUTS run's cost
grows steeply with the tree, so the comparison is made per tree size: the mean leapfrog steps per NUTS transition
of the runs on trees with L leaves (the NUTS runs of every sampling iteration, on the current tree and on the
proposal; a rejected proposal's run is skipped), and the wall time per sampling iteration.

Usage: python benchmarks/bench_carry_mass.py [--iterations 40] [--seeds 0,1,2,3] [--no-write]
(about 4 minutes on one core). Writes benchmarks/results/carry_mass.md.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
from harness import RESULTS, machine_summary, minmax_scale

from tabular_trees.bayes import RJHMCSettings, TreePosterior, TreePrior, rjhmc_chain
from tabular_trees.datasets import make_cgm

K = 500


def measure(method, n_iter, seeds):
    X, y, _, _ = make_cgm(random_state=0)
    post = TreePosterior(minmax_scale(X), y, "regression", use_simplex=method == "hmc-dfi",
                         prior=TreePrior(alpha=0.45, beta=2.5))
    per_size = {False: defaultdict(list), True: defaultdict(list)}
    seconds = {False: 0.0, True: 0.0}
    for seed in seeds:
        for carry in (False, True):
            steps = []
            rjhmc_chain(post, n_iter=n_iter, n_burnin=n_iter // 2, seed=seed, observer=steps.append,
                        sampler=RJHMCSettings(k_warmup=K, carry_mass=carry))
            steps = [s for s in steps if not s.burn_in]  # burn-in is the same with and without the option
            seconds[carry] += sum(s.seconds for s in steps)
            for s in steps:
                per_size[carry][s.current_leaves].append(s.nuts[0].n_leapfrog / (K + 1))
                if len(s.nuts) == 2:  # after burn-in a rejected proposal's run is skipped
                    per_size[carry][s.proposed_leaves].append(s.nuts[1].n_leapfrog / (K + 1))
        print(method, "seed", seed, "done", flush=True)
    n_chain_iter = (n_iter - n_iter // 2) * len(seeds)
    return dict(method=method, per_size=per_size, s_per_it={c: seconds[c] / n_chain_iter for c in seconds})


def markdown(rows, n_iter, seeds):
    L = ["# Carrying the adapted mass matrix between NUTS runs (`python benchmarks/bench_carry_mass.py`)", "",
         f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine_summary()}; one core. CGM data, "
         f"k = {K}, Table 4's h per method, α = 0.45, β = 2.5; {len(seeds)} chains per method and setting "
         f"(seeds {', '.join(map(str, seeds))}), {n_iter} iterations each from a stump, of which "
         f"{n_iter // 2} burn-in (shared by the two settings; not counted below).", "",
         "| method | leaves of the NUTS run's tree (after burn-in) | leapfrog / transition, unit start (runs) | "
         "leapfrog / transition, carried (runs) | ratio |", "|---|---|---|---|---|"]
    for r in rows:
        ps = r["per_size"]
        for size in sorted(set(ps[False]) | set(ps[True])):
            a, b = ps[False].get(size, []), ps[True].get(size, [])
            ma = f"{np.mean(a):.0f} ({len(a)})" if a else "– (0)"
            mb = f"{np.mean(b):.0f} ({len(b)})" if b else "– (0)"
            ratio = f"{np.mean(b) / np.mean(a):.2f}" if a and b and len(a) >= 5 and len(b) >= 5 else "–"
            L.append(f"| {r['method']} | {size} | {ma} | {mb} | {ratio} |")
    L += ["", "| method | s / sampling iteration, unit start | s / sampling iteration, carried |", "|---|---|---|"]
    for r in rows:
        L.append(f"| {r['method']} | {r['s_per_it'][False]:.3f} | {r['s_per_it'][True]:.3f} |")
    L += ["", "Ratios only where both settings have at least 5 runs on trees of that size. The seconds per iteration "
          "mix tree sizes: a chain that reaches larger trees costs more per iteration, so compare the per-size rows. "
          "On one fixed CGM tree a carried mass cuts the warm-up of both methods by half or more, with HMC-DFI's "
          "softness ramp too (nuts_warmup.md)."]
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--seeds", default="0,1,2,3")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    rows = [measure(m, a.iterations, seeds) for m in ("hmc-df", "hmc-dfi")]
    text = markdown(rows, a.iterations, seeds)
    print(text)
    if not a.no_write:
        (RESULTS / "carry_mass.md").write_text(text)
        print("wrote", RESULTS / "carry_mass.md")


if __name__ == "__main__":
    main()
