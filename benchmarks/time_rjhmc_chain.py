"""Time RJHMC-Tree iterations on the CGM data with whichever ``tabular_trees`` is importable (a helper of
``bench_bayes.py --against REV``, which runs it once with an older commit's package and once with this one).

Reads one JSON object from the command line: ``method``, ``h_start`` (h_init of the short chain that finds a
posterior-sized start), ``h`` (the timed h), ``n_start``, ``n_iter``, ``k_warmup``, ``seed`` and ``settings``
(extra ``RJHMCSettings`` fields, e.g. ``{"carry_mass": true}``); prints one JSON object: seconds per iteration,
leapfrog steps per NUTS transition, mean leaves of the iterations' current and proposed trees, NUTS runs per
iteration (two, or one where a rejected proposal's run is skipped). Uses only API that the older commits have.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from harness import minmax_scale

from tabular_trees.bayes import RJHMCSettings, TreePosterior, TreePrior, rjhmc_chain
from tabular_trees.datasets import make_cgm


def main():
    spec = json.loads(sys.argv[1])
    X, y, _, _ = make_cgm(random_state=0)
    X = minmax_scale(X)
    post = TreePosterior(X, y, "regression", use_simplex=spec["method"] == "hmc-dfi",
                         prior=TreePrior(alpha=0.45, beta=2.5))
    h = spec["h"]
    rjhmc_chain(post, n_iter=1, n_burnin=1, seed=99, sampler=RJHMCSettings(k_warmup=20, h_init=h, h_final=h))  # compile
    start = rjhmc_chain(post, n_iter=spec["n_start"] + 1, n_burnin=spec["n_start"], seed=1,
                        sampler=RJHMCSettings(k_warmup=100, h_init=spec["h_start"], h_final=h))
    init = (start.trees[-1], float(start.sigmas[-1]))
    steps = []
    t0 = time.process_time()
    rjhmc_chain(post, n_iter=spec["n_iter"], n_burnin=0, seed=spec["seed"], init=init, observer=steps.append,
                sampler=RJHMCSettings(k_warmup=spec["k_warmup"], h_init=h, h_final=h, **spec["settings"]))
    cpu = time.process_time() - t0
    k = spec["k_warmup"]
    print(json.dumps(dict(
        cpu_s_per_iteration=cpu / spec["n_iter"],
        wall_s_per_iteration=float(np.mean([s.seconds for s in steps])),
        leapfrog_per_transition=float(np.mean([n.n_leapfrog / (k + 1) for s in steps for n in s.nuts])),
        mean_leaves=float(np.mean([[s.current_leaves, s.proposed_leaves] for s in steps])),
        nuts_runs_per_iteration=float(np.mean([len(s.nuts) for s in steps])),
        start_leaves=int(start.trees[-1].n_leaves))))


if __name__ == "__main__":
    main()
