"""Leaf-count trajectories of RJHMC-Tree chains run under a wall-clock limit (chapter 10's prune warm start study).

A chain of ``reproduce_rjhmc.py`` writes its results only when it ends, and a chain that grows large trees may not
end within the time a machine is lent for. ``run`` executes exactly the chain ``reproduce_rjhmc.py`` would (same
protocol, seeds and settings) and writes, as it goes, one line per iteration: the number of leaves of the chain's
current tree when that iteration's move is drawn, and the seconds since start when the iteration ended (the chain's
observer, :class:`tabular_trees.bayes.ChainStep`, reports both). So the file's line ``i`` (from 0) is the tree size
after iteration ``i - 1``: the same numbers as the ``n_leaves`` trace, shifted by one, for as many iterations as the
chain completed. ``collect`` joins those files, and the full results of chains that finished, into
one recorded run.

Usage::

    # one process per chain, e.g. on a 16-core machine under `timeout`
    python benchmarks/trace_rjhmc_leaves.py run OUTDIR --method hmc-df --chain 3 --protocol long --prune-start reference
    # chains that finish can also be run with reproduce_rjhmc.py directly (--chains 3:4 --output OUTDIR/long_hmc-df_3)
    python benchmarks/trace_rjhmc_leaves.py collect OUTDIR --protocol long --prune-start reference \\
        --machine "..." --output tabular_trees/_recorded/rjhmc_long_reference_start
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from harness import load_script


def run(outdir: Path, method: str, chain: int, protocol: str, prune_start: str, extra=()) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with open(outdir / f"leaves_{method}_{chain}.txt", "w", buffering=1) as log:
        def observe(step):
            # the tree the iteration's move was proposed from, i.e. the chain's tree after the previous iteration
            log.write(f"{step.current_leaves} {time.perf_counter() - start:.2f}\n")

        protocol_args = ["--quick"] if protocol == "quick" else ["--protocol", protocol]
        load_script("reproduce_rjhmc").main(
            protocol_args + ["--datasets", "", "--methods", method, "--n-jobs", "1", "--prune-start", prune_start,
                             "--chains", f"{chain}:{chain + 1}", "--output", str(outdir / f"{protocol}_{method}_{chain}"),
                             *extra], observer=observe)


def collect(outdir: Path, protocol: str, prune_start: str, machine: str, output: Path, extra=()) -> None:
    chains = {}
    for method in ("hmc-df", "hmc-dfi"):
        rows = []
        for chain in range(100):
            full = outdir / f"{protocol}_{method}_{chain}_traces.npz"
            partial = outdir / f"leaves_{method}_{chain}.txt"
            if full.exists():
                leaves = np.load(full)[f"table1/cgm/{method}/n_leaves"][0]
                result = json.loads((outdir / f"{protocol}_{method}_{chain}.json").read_text())
                summary = result["table1"][method]["chains"][0]
                rows.append({"chain": chain, "complete": True, "n_leaves": leaves.astype(int).tolist(),
                             "seconds": result["table1"][method]["seconds"],
                             "test_mse": summary["test_mse"], "acceptance": summary["acceptance"]})
            elif partial.exists():
                lines = np.loadtxt(partial, ndmin=2)
                # line i holds the tree after iteration i-1; the last line's iteration may not have finished
                rows.append({"chain": chain, "complete": False, "n_leaves": lines[1:, 0].astype(int).tolist(),
                             "seconds": float(lines[-1, 1])})
        chains[method] = rows
    proto = load_script("reproduce_rjhmc").PROTOCOLS[protocol]
    proto = dict(proto, prune_start=prune_start)
    if "--numpyro-step-size" in extra:
        proto["step_size_search"] = False
    if "--random-walk-splits" in extra:
        proto["split_index_update"] = "random_walk"
    res = {"protocol_name": protocol, "protocol": proto, "machine": machine,
           "chains": chains,
           "note": "n_leaves[i] is the tree size after iteration i; chains with complete=False were stopped by the "
                   "wall-clock limit after len(n_leaves) iterations (burn-in ends at iteration "
                   f"{proto['n_burnin']})."}
    output.with_suffix(".json").write_text(json.dumps(res, indent=1))
    print(f"wrote {output.with_suffix('.json')}: " + ", ".join(
        f"{m}: {len(r)} chains ({sum(c['complete'] for c in r)} complete)" for m, r in chains.items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run one chain, writing its leaf count at every iteration")
    c = sub.add_parser("collect", help="join the chains of OUTDIR into one recorded run")
    for p in (r, c):
        p.add_argument("outdir", type=Path)
        p.add_argument("--protocol", default="long", choices=("paper", "long", "medium", "quick"))
        p.add_argument("--prune-start", default="reference", choices=("paper", "reference"))
        p.add_argument("--numpyro-step-size", action="store_true",
                       help="NumPyro's step-size start (reproduce_rjhmc.py's option of that name)")
        p.add_argument("--random-walk-splits", action="store_true",
                       help="HMC-DF's split indices by uniform random-walk Metropolis (reproduce_rjhmc.py's option)")
    r.add_argument("--method", required=True, choices=("hmc-df", "hmc-dfi"))
    r.add_argument("--chain", required=True, type=int)
    c.add_argument("--machine", required=True, help="where the chains ran (recorded in the output)")
    c.add_argument("--output", required=True, type=Path, help="output path without extension")
    args = ap.parse_args(argv)
    extra = (["--numpyro-step-size"] if args.numpyro_step_size else []) + \
        (["--random-walk-splits"] if args.random_walk_splits else [])
    if args.command == "run":
        run(args.outdir, args.method, args.chain, args.protocol, args.prune_start, extra)
    else:
        collect(args.outdir, args.protocol, args.prune_start, args.machine, args.output, extra)


if __name__ == "__main__":
    main()
