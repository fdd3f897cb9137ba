"""Chapter 10's live miniature over seeds 0-4: how many chains of each method reach the noise floor.

The chapter runs the miniature live with ``random_state=0``; this script runs the same settings with
``random_state`` 0, 1, 2, 3, 4 (each on the chapter's CGM data, ``make_cgm(random_state=0)``) and records, per
method and seed, every chain's posterior-mean test MSE, leaves, acceptance and divergences. The notes page
(book/14) shows the share of chains at the noise floor (test MSE < 0.05) per method; a hidden check in chapter 10
compares its live seed with the recorded seed 0.

Usage::

    python benchmarks/bayes_miniature_seeds.py                 # writes tabular_trees/_recorded/rjhmc_miniature_seeds.json
    python benchmarks/bayes_miniature_seeds.py --seeds 0,1 --output /tmp/mini
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import numpy as np

from harness import RECORDED, machine_description
from tabular_trees import bayes
from tabular_trees.datasets import make_cgm

FLOOR = 0.05  # posterior-mean test MSE below this counts as "at the noise floor" (noise variance 0.04)

# The chapter's miniature (book/10_bayesian_trees.ipynb builds the same estimators; a hidden check compares).
MINIATURE = {
    "n_chains": 2,
    "cgm": {"n_iter": 2000, "n_burnin": 1000},
    "hmc": {"n_iter": 200, "n_burnin": 140, "k_warmup": 50, "burnin_leaf_draw": True},
}


def miniature_models(random_state, n_jobs=1):
    """The chapter's three estimators (unfitted) for one ``random_state``."""
    common = dict(n_chains=MINIATURE["n_chains"], n_jobs=n_jobs, random_state=random_state, standardize_y=False)
    hmc = MINIATURE["hmc"]
    models = {"cgm": bayes.BayesianTreeRegressor(method="cgm", n_iter=MINIATURE["cgm"]["n_iter"],
                                                 n_burnin=MINIATURE["cgm"]["n_burnin"],
                                                 prior=bayes.TreePrior(alpha=0.45, beta=2.5), **common)}
    for name in ("hmc-df", "hmc-dfi"):
        models[name] = bayes.BayesianTreeRegressor(
            method=name, n_iter=hmc["n_iter"], n_burnin=hmc["n_burnin"],
            sampler=bayes.RJHMCSettings(k_warmup=hmc["k_warmup"], burnin_leaf_draw=hmc["burnin_leaf_draw"]),
            **common)
    return models


def chain_rows(model, Xte, yte):
    """Per chain: posterior-mean test MSE, mean leaves after burn-in, acceptance, divergences per iteration."""
    p_te = model.sample_predictions(Xte).reshape(model.n_chains, -1, len(Xte)).mean(axis=1)
    mse = ((p_te - yte) ** 2).mean(axis=1)
    return [{"chain": c, "test_mse": float(mse[c]), "leaves": float(model.n_leaves_[c, model.n_burnin:].mean()),
             "acceptance": float(model.accepted_[c].mean()), "divergences": float(model.divergences_[c].mean())}
            for c in range(model.n_chains)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--output", default=str(RECORDED / "rjhmc_miniature_seeds"))
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON", help="join runs of single seeds into one file")
    args = ap.parse_args(argv)
    if args.merge:
        runs = [json.loads(Path(f).read_text()) for f in args.merge]
        res = dict(runs[0], seeds={k: v for r in runs for k, v in r["seeds"].items()},
                   script=" + ".join(r["script"].strip() for r in runs) + " (one process per run), joined with --merge")
        if any(r["miniature"] != res["miniature"] for r in runs):
            raise SystemExit("the runs to merge have different settings")
        Path(args.output).with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
        return
    Xtr, ytr, Xte, yte = make_cgm(random_state=0)
    import sys

    res = {"script": "benchmarks/bayes_miniature_seeds.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "date": datetime.date.today().isoformat(), "machine": machine_description(), "n_jobs": args.n_jobs,
           "miniature": MINIATURE, "floor": FLOOR, "seeds": {}}
    for seed in (int(s) for s in args.seeds.split(",")):
        res["seeds"][str(seed)] = {}
        for name, model in miniature_models(seed, args.n_jobs).items():
            t0 = time.perf_counter()
            model.fit(Xtr, ytr)
            rows = chain_rows(model, Xte, yte)
            res["seeds"][str(seed)][name] = {"seconds": time.perf_counter() - t0, "chains": rows}
            print(f"seed {seed} {name:8s} test MSE " + ", ".join(f"{r['test_mse']:.3f}" for r in rows)
                  + f" [{res['seeds'][str(seed)][name]['seconds']:.0f} s]", flush=True)
    out = Path(args.output).with_suffix(".json")
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
