"""Reproduce Tables 1 and 2 of Cochrane, Wills & Johnson (RJHMC-Tree) with ``tabular_trees.bayes``.

Protocols (``--protocol``):

* ``paper``  — the paper's: 10 chains per method, 1000 iterations, k = 500 NUTS warm-up steps on
  each side of every jump; burn-in 500 on the CGM data (stated) and 200 on the real data (the
  paper's discussion of its Iris run puts the end of burn-in at iteration 200; its acceptance
  rates of 53–59 % fit 1000 iterations with 200 burn-in, since stays after burn-in are always
  accepted); CGM (random-walk MH) for 5000 iterations keeping the last 500 on the CGM data and
  1000 keeping the last 500 on the real data, the chain lengths the authors' results script
  reads. Table 1 costs 1.81 CPU-hours (measured whole: ``benchmarks/results/table1_cost.md``; chains that
  settle on larger trees take longer), and Table 2 several: run it in batches (``--chains``, ``--methods``,
  ``--datasets``) and join them with ``--merge``.
* ``long``   — the paper's chains with k = 100 NUTS warm-up steps per half-move instead of 500, the quick way
  to reproduce Table 1: 0.52 CPU-hours, 16 min on 2 cores (``benchmarks/results/reproduce_rjhmc.md``).
* ``medium`` — 4 chains, 200 iterations (100 burn-in), k = 100; CGM with 2000 iterations
  (1000 burn-in). About 15–25 minutes on 2 cores.
* ``--quick`` — a smoke run (2 chains, 16 iterations, k = 20; CGM 200 iterations, a 2-dataset subset).

Data: the CGM data of the paper (``make_cgm``, 800 + 800 rows, noise σ = 0.2) for Table 1; for
Table 2 the paper's Iris, Wine and Wisconsin breast cancer (original, 683 × 9 after dropping 16
rows with a missing score) with the authors' train/test splits (``load_rjhmc_real``: Python's
``random`` shuffle seeded 123456789, 70 % train for Iris and breast cancer, 80 % for Wine).
Hyperparameters: Table 4 of the paper for the HMC methods; for CGM on the real data the tree
prior α = 0.95, β = 1 of Chipman et al. (the paper's CGM settings use the other package's
α_split > 1, which is not a probability), on the CGM data α = 0.45, β = 2.5.

Metrics per chain (then mean and sd over chains): the posterior-predictive MSE / accuracy of the
chain (average of the kept trees' predictions), the average per-sample MSE (what the paper
averages), the mean number of leaves after burn-in and the acceptance rate over the whole
chain in percent. The authors' results script pools instead the last 500 iterations of all
chains and reports their mean and standard deviation (on the real data, where burn-in ends at
200, that window is shorter than ours); every entry also carries that summary as
``paper_summary``, computed from the traces (``pooled_window``). Writes ``<output>.json`` (default
``tabular_trees/_recorded/rjhmc_tables``: recorded runs the book shows ship as package data) and its tables
as the section ``<name>`` of ``benchmarks/results/reproduce_rjhmc.md`` (for any other output folder, an ``.md``
next to the ``.json``) and the per-chain traces (leaves at every iteration, test error of every kept tree) to
``<output>_traces.npz``.

Chains that may not finish within the time a machine is lent for (``--log-leaves DIR``): run each chain as
its own process (``--chains c:c+1``, one HMC method, ``--n-jobs 1``); it writes, as it goes, one line per
iteration to ``DIR/leaves_<method>_<c>.txt`` (the number of leaves of the chain's current tree when that
iteration's move is drawn, and the seconds since start), so line ``i`` (from 0) is the tree size after
iteration ``i - 1``, and, if it finishes, its results to ``DIR/<protocol>_<method>_<c>``.
``--collect-leaves DIR --machine ... --output ...`` joins the finished chains' results and the stopped
chains' logs into one recorded run (``rjhmc_long_reference_start`` was made this way).

Usage::

    python benchmarks/reproduce_rjhmc.py --protocol medium --n-jobs 2
    python benchmarks/reproduce_rjhmc.py --quick
    python benchmarks/reproduce_rjhmc.py --quick --dask local --n-jobs 2        # chains as Dask tasks (or --dask tcp://host:8786)
    # the paper protocol in batches, then one file
    python benchmarks/reproduce_rjhmc.py --methods hmc-dfi --datasets '' --chains 0:2 --output dfi_0
    python benchmarks/reproduce_rjhmc.py --skip-table1 --datasets wine --methods hmc-df --output wine_df
    # Table 1 with the authors' positional prune warm start (chapter 10; its trees grow, so more CPU-hours than Table 1)
    python benchmarks/reproduce_rjhmc.py --protocol paper --datasets '' --methods hmc-df,hmc-dfi --prune-start reference --output tabular_trees/_recorded/rjhmc_paper_reference_start
    python benchmarks/reproduce_rjhmc.py --merge dfi_0.json ... wine_df.json --output tabular_trees/_recorded/rjhmc_paper
    # chains under a wall-clock limit, one process per chain, then one recorded run
    timeout 3h python benchmarks/reproduce_rjhmc.py --protocol long --datasets '' --methods hmc-df --chains 3:4 --n-jobs 1 --prune-start reference --log-leaves OUTDIR
    python benchmarks/reproduce_rjhmc.py --protocol long --prune-start reference --collect-leaves OUTDIR --machine "..." --output tabular_trees/_recorded/rjhmc_long_reference_start
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import time
from pathlib import Path

import numpy as np

from harness import RECORDED, RESULTS, code_version, write_section  # .json/.npz the book reads; human-readable .md tables
from tabular_trees import bayes
from tabular_trees.datasets import load_rjhmc_real, make_cgm, rjhmc_paper_results

PROTOCOLS = {
    "paper": dict(n_chains=10, n_iter=1000, n_burnin=500, real_burnin=200, k_warmup=500, cgm_iter=5000,
                  cgm_burnin=4500, cgm_real_iter=1000, cgm_real_burnin=500),
    "long": dict(n_chains=10, n_iter=1000, n_burnin=500, real_burnin=200, k_warmup=100, cgm_iter=5000,
                 cgm_burnin=4500, cgm_real_iter=1000, cgm_real_burnin=500),
    "medium": dict(n_chains=4, n_iter=200, n_burnin=100, real_burnin=100, k_warmup=100, cgm_iter=2000,
                   cgm_burnin=1000),
    "quick": dict(n_chains=2, n_iter=16, n_burnin=8, real_burnin=8, k_warmup=20, cgm_iter=200, cgm_burnin=100),
}

# The paper's Tables 1, 2 and 4 as published (typed in once, in the library): Table 4's (h_init, h_final, alpha, beta)
# per method and dataset set the runs; Tables 1 and 2 appear in brackets next to ours.
PAPER = rjhmc_paper_results()
TABLE4, PAPER_TABLE1 = PAPER["table4"], PAPER["table1"]


def paper_table2(dataset, method, key):
    """The paper's Table 2 entry, or '–' where the paper has none (SMC's acceptance, WU on Iris and Wine)."""
    value = PAPER["table2"][dataset].get(method, {}).get(key)
    return "–" if value is None else value


METHODS = ("cgm", "hmc-df", "hmc-dfi")


def chain_metrics(est, X_train, y_train, X_test, y_test, task):
    """Per-chain metrics of a fitted estimator (see the module docstring), and traces: the
    number of leaves at every iteration and the test error of every kept tree, per chain."""
    out = []
    traces = {"n_leaves": est.n_leaves_.astype(np.int16), "test_error_per_sample": []}
    nb = est.n_burnin
    kept = est.n_iter - nb  # kept samples per chain; chain c's are rows c*kept:(c+1)*kept of the per-sample output
    per_sample = {}
    for split, X in (("train", X_train), ("test", X_test)):
        per_sample[split] = est.sample_predictions(X) if task == "regression" else est.sample_predict_proba(X)
    for c, chain in enumerate(est.chains_):
        row = {"leaves": float(est.n_leaves_[c, nb:].mean()), "acceptance": 100 * float(est.accepted_[c].mean())}
        for split, X, y in (("train", X_train, y_train), ("test", X_test, y_test)):
            if task == "regression":
                preds = per_sample[split][c * kept:(c + 1) * kept]
                row[f"{split}_mse"] = float(np.mean((preds.mean(axis=0) - y) ** 2))
                row[f"{split}_mse_per_sample"] = float(np.mean((preds - y) ** 2))
                if split == "test":
                    traces["test_error_per_sample"].append(np.mean((preds - y) ** 2, axis=1))
            else:
                probs = per_sample[split][c * kept:(c + 1) * kept]
                codes = np.searchsorted(est.classes_, y)
                row[f"{split}_acc"] = float(np.mean(probs.mean(axis=0).argmax(axis=1) == codes))
                row[f"{split}_acc_per_sample"] = float(np.mean(probs.argmax(axis=2) == codes))
                if split == "test":
                    traces["test_error_per_sample"].append(np.mean(probs.argmax(axis=2) != codes, axis=1))
        out.append(row)
    traces["test_error_per_sample"] = np.array(traces["test_error_per_sample"], dtype=np.float32)
    return out, traces


def summarise(rows):
    keys = rows[0].keys()
    return {k: {"mean": float(np.mean([r[k] for r in rows])), "sd": float(np.std([r[k] for r in rows]))}
            for k in keys}


def fit(method, dataset, task, data, proto, n_jobs, seed, observer=None):
    """Fit one method on one dataset as the protocol says; ``observer`` (chains in this process only) receives
    every chain's :class:`~tabular_trees.bayes.ChainStep`."""
    h0, h1, a, b = TABLE4[method][dataset]
    prune_start = proto.get("prune_start", "paper")  # the protocol carries the sampler variants it was run with
    n_burnin = proto["n_burnin"] if task == "regression" else proto.get("real_burnin", proto["n_burnin"])
    Est = bayes.BayesianTreeRegressor if task == "regression" else bayes.BayesianTreeClassifier
    # the paper (and the authors' code) fits the CGM data's y unscaled (only X is min-max scaled)
    paper_scaling = {"standardize_y": False} if task == "regression" else {}
    if method == "cgm":
        n_iter, n_burnin = proto["cgm_iter"], proto["cgm_burnin"]
        if task == "classification":
            n_iter, n_burnin = proto.get("cgm_real_iter", n_iter), proto.get("cgm_real_burnin", n_burnin)
        est = Est(method="cgm", n_iter=n_iter, n_burnin=n_burnin, prior=bayes.TreePrior(alpha=a, beta=b),
                  n_chains=proto["n_chains"], n_jobs=n_jobs, random_state=seed, **paper_scaling)
    else:
        n_iter = proto["n_iter"]
        sampler = bayes.RJHMCSettings(k_warmup=proto["k_warmup"], h_init=h0, h_final=h1, prune_start=prune_start,
                                      step_size_search=proto.get("step_size_search", True),
                                      split_index_update=proto.get("split_index_update", "gibbs"))
        est = Est(method=method, n_iter=n_iter, n_burnin=n_burnin, sampler=sampler,
                  prior=bayes.TreePrior(alpha=a, beta=b), n_chains=proto["n_chains"], n_jobs=n_jobs,
                  random_state=seed, **paper_scaling)
    settings = {"h_init": h0, "h_final": h1, "alpha": a, "beta": b, "n_iter": n_iter, "n_burnin": n_burnin}
    if method != "cgm" and prune_start != "paper":
        settings["prune_start"] = prune_start
    if method != "cgm" and not proto.get("step_size_search", True):
        settings["step_size_search"] = False
    if method == "hmc-df" and proto.get("split_index_update", "gibbs") != "gibbs":
        settings["split_index_update"] = proto["split_index_update"]
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        est.fit(data[0], data[1], observer=observer)
    except Exception as exc:  # record a failed run instead of losing the others
        return {"error": f"{type(exc).__name__}: {exc}", "seconds": time.perf_counter() - t0, "settings": settings}
    seconds = time.perf_counter() - t0
    # this process's CPU time: the fit's whole cost with --n-jobs 1 (with more jobs the chains run in workers)
    cpu_seconds = time.process_time() - cpu0 if n_jobs == 1 else None
    rows, traces = chain_metrics(est, *data, task)
    return {"chains": rows, "summary": summarise(rows), "seconds": seconds, "cpu_seconds": cpu_seconds,
            "traces": traces, "settings": settings}


def real_datasets(names):
    return {name: load_rjhmc_real(name) for name in names}


def pooled_window(traces, key, window=500):
    """The run summarised as the authors' results script does: the last ``window`` iterations of every
    chain (iterations 501-1000), pooled over chains.

    Returns the mean and sd of the kept trees' test error and their mean number of leaves, or None when
    the traces of ``key`` ("<table>/<dataset>/<method>") are absent.
    """
    if f"{key}/test_error_per_sample" not in traces:
        return None
    err = np.asarray(traces[f"{key}/test_error_per_sample"], dtype=float)[:, -window:]
    leaves = np.asarray(traces[f"{key}/n_leaves"], dtype=float)[:, -window:]
    return {"window": window, "test_error": float(err.mean()), "test_error_sd": float(err.std(ddof=1)),
            "leaves": float(leaves.mean())}


def markdown(res):
    proto = res["protocol"]
    burnin, cgm_real = f"{proto['n_burnin']} burn-in", ""
    if res["table2"]:  # the real data have their own burn-in and CGM length in the paper protocols
        burnin += f" on the CGM data, {proto.get('real_burnin', proto['n_burnin'])} on the real data"
        if "cgm_real_iter" in proto:
            cgm_real = f"; {proto['cgm_real_iter']} with {proto['cgm_real_burnin']} burn-in on the real data"
    title = " and ".join(n for n, key in (("Table 1", "table1"), ("Table 2", "table2")) if res[key])
    lines = [f"# RJHMC-Tree: {title} reproduced (`{res['protocol_name']}` protocol)", "",
             f"Protocol: {proto['n_chains']} chains per method; RJHMC {proto['n_iter']} iterations ({burnin}), "
             f"k = {proto['k_warmup']}; CGM {proto['cgm_iter']} iterations ({proto['cgm_burnin']} burn-in{cgm_real}). "
             f"Mean (sd) over chains; paper values in brackets. "
             f"Machine: {res['machine']}; total {res['total_seconds']:.0f} s."
             + (f" Code: {res['code']}." if "code" in res else ""), ""]
    if res["table1"]:
        lines += ["## Table 1 (CGM data; noise-only test MSE ≈ 0.04)", "",
                  "| method | train MSE | test MSE (posterior mean) | test MSE (per sample) | leaves | acceptance % | s |",
                  "|---|---|---|---|---|---|---|"]
    for m, r in res["table1"].items():
        if "error" in r:
            lines.append(f"| {m} | failed: {r['error']} | | | | | |")
            continue
        s, p = r["summary"], PAPER_TABLE1[m]
        lines.append(f"| {m} | {s['train_mse']['mean']:.4f} [{p['train_mse']}] | {s['test_mse']['mean']:.4f} "
                     f"({s['test_mse']['sd']:.4f}) | {s['test_mse_per_sample']['mean']:.4f} [{p['test_mse']}] | "
                     f"{s['leaves']['mean']:.2f} [{p['leaves']}] | {s['acceptance']['mean']:.2f} [{p['acceptance']}] "
                     f"| {r['seconds']:.0f} |")
    if res["table1"]:
        lines += ["", "Per-chain test MSE (posterior mean): " + "; ".join(
            f"{m}: " + ", ".join(f"{c['test_mse']:.3f}" for c in r["chains"])
            for m, r in res["table1"].items() if "error" not in r), ""]
        pooled = {m: r["paper_summary"] for m, r in res["table1"].items() if r.get("paper_summary")}
        if pooled:
            lines += ["As the authors' results script summarises a run (the last 500 iterations of every chain, pooled): "
                      + "; ".join(f"{m}: test MSE {v['test_error']:.4f} (sd {v['test_error_sd']:.1e}) "
                                  f"[{PAPER_TABLE1[m]['test_mse']} (sd {PAPER_TABLE1[m]['test_sd']:.1e})], "
                                  f"leaves {v['leaves']:.2f}" for m, v in pooled.items()), ""]
    if not res["table2"]:
        lines += ["Table 2 was not part of this run (`--datasets ''`); run the script with the default datasets for it."]
    else:
        lines += ["## Table 2 (test accuracy; the paper's data and train/test splits, breast cancer = original 683 × 9)", "",
                  "| dataset | method | train acc | test acc (posterior mean) | test acc (per sample) | leaves | "
                  "acceptance % | s |", "|---|---|---|---|---|---|---|---|"]
        for d, by_m in res["table2"].items():
            for m, r in by_m.items():
                if "error" in r:
                    lines.append(f"| {d} | {m} | failed: {r['error']} | | | | | |")
                    continue
                s = r["summary"]
                lines.append(f"| {d} | {m} | {s['train_acc']['mean']:.3f} | {s['test_acc']['mean']:.3f} "
                             f"({s['test_acc']['sd']:.3f}) | {s['test_acc_per_sample']['mean']:.3f} "
                             f"[{paper_table2(d, m, 'test_acc')}] | {s['leaves']['mean']:.2f} "
                             f"[{paper_table2(d, m, 'leaves')}] | {s['acceptance']['mean']:.1f} "
                             f"[{paper_table2(d, m, 'acceptance')}] | {r['seconds']:.0f} |")
        pooled = {(d, m): r["paper_summary"] for d, by_m in res["table2"].items() for m, r in by_m.items()
                  if r.get("paper_summary")}
        if pooled:
            lines += ["", ("As the authors' results script summarises a run (the last 500 iterations of every chain, "
                           "pooled; paper values in brackets):"), "",
                      "| dataset | method | test acc (sd) | leaves |", "|---|---|---|---|"]
            for (d, m), v in pooled.items():
                lines.append(f"| {d} | {m} | {1 - v['test_error']:.3f} ({v['test_error_sd']:.3f}) "
                             f"[{paper_table2(d, m, 'test_acc')} ({paper_table2(d, m, 'test_sd')})] | {v['leaves']:.2f} "
                             f"[{paper_table2(d, m, 'leaves')}] |")
    return "\n".join(lines) + "\n"


def write(res, traces, out):
    out.parent.mkdir(parents=True, exist_ok=True)
    entries = [(f"table1/cgm/{m}", r) for m, r in res["table1"].items()]
    entries += [(f"table2/{d}/{m}", r) for d, by_m in res["table2"].items() for m, r in by_m.items()]
    for key, run in entries:
        run["paper_summary"] = pooled_window(traces, key)
    np.savez_compressed(out.with_name(out.name + "_traces.npz"), **traces)
    out.with_suffix(".json").write_text(json.dumps(res, separators=(",", ":")))  # compact: it ships with the package
    # a run recorded as package data keeps its tables in a section of benchmarks/results/reproduce_rjhmc.md; any
    # other output (a batch, a test's temporary file) keeps them next to its .json
    if out.resolve().parent == RECORDED.resolve():
        md = RESULTS / "reproduce_rjhmc.md"
        text = markdown(res).replace("# RJHMC-Tree: ", f"## `{out.name}`: ", 1).replace("\n## ", "\n### ")
        write_section(md, out.name, text, "RJHMC-Tree: the recorded reproductions of Tables 1 and 2")
    else:
        md = out.with_suffix(".md")
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(markdown(res))
    print(f"wrote {out.with_suffix('.json')} and {md} ({res['total_seconds']:.0f} s)")


# the sampler variants a protocol records only when they differ from these defaults (see main)
SAMPLER_VARIANTS = {"prune_start": "paper", "step_size_search": True, "split_index_update": "gibbs"}


def merge(paths, out):
    """Join result files of one protocol and seed: batches of chains, other methods, other datasets.

    Every (table, dataset, method) entry is joined over the files that hold it; its chain batches
    must be contiguous, and every entry must end up with the same chains.
    """
    loaded = [(json.loads(Path(p).read_text()), Path(p)) for p in paths]
    base = loaded[0][0]
    protocol = {}  # union over the files (older files may lack a later key); shared keys must agree
    for r, _ in loaded:
        if (r["protocol_name"], r["seed"]) != (base["protocol_name"], base["seed"]):
            raise SystemExit("--merge: the files come from different protocols or seeds")
        for key, default in SAMPLER_VARIANTS.items():  # a file records a variant only when it is not the default
            values = {f["protocol"].get(key, default) for f, _ in loaded}
            if len(values) > 1:
                raise SystemExit(f"--merge: the files disagree on the sampler's {key}: {sorted(map(str, values))}")
        for key, value in r["protocol"].items():
            if key != "n_chains" and protocol.setdefault(key, value) != value:
                raise SystemExit(f"--merge: the files disagree on the protocol's {key}: {protocol[key]} vs {value}")
    entries = {}  # (table, dataset, method) -> [(first chain, run, traces of that run)]
    for r, path in loaded:
        npz = np.load(path.with_name(path.stem + "_traces.npz"))
        runs = [(("table1", "cgm", m), run) for m, run in r["table1"].items()]
        runs += [(("table2", d, m), run) for d, by_m in r["table2"].items() for m, run in by_m.items()]
        for key, run in runs:
            prefix = "/".join(key) + "/"
            tr = {k[len(prefix):]: npz[k] for k in npz.files if k.startswith(prefix)}
            entries.setdefault(key, []).append((r.get("first_chain", 0), run, tr))
    res = dict(base, total_seconds=sum(r["total_seconds"] for r, _ in loaded), table1={}, table2={},
               machine="; ".join(sorted({m for r, _ in loaded for m in r["machine"].split("; ")})))
    traces, ranges = {}, set()
    for key, batches in entries.items():
        batches.sort(key=lambda b: b[0])
        sizes = [len(run["chains"]) for _, run, _ in batches]
        starts = [b[0] for b in batches]
        if any(a + n != b for a, n, b in zip(starts, sizes, starts[1:])):
            raise SystemExit(f"--merge: chain batches of {key} must be contiguous, got starts {starts}, sizes {sizes}")
        ranges.add((starts[0], sum(sizes)))
        table, dataset, method = key
        merged = _merge_runs([run for _, run, _ in batches])
        if table == "table1":
            res["table1"][method] = merged
        else:
            res["table2"].setdefault(dataset, {})[method] = merged
        for name in batches[0][2]:
            traces[f"{table}/{dataset}/{method}/{name}"] = np.concatenate([tr[name] for _, _, tr in batches])
    if len(ranges) != 1:
        raise SystemExit(f"--merge: the entries cover different chains (first chain, count): {sorted(ranges)}")
    order = {m: i for i, m in enumerate(METHODS)}  # methods in the tables' order, whatever the files' order
    res["table1"] = dict(sorted(res["table1"].items(), key=lambda kv: order.get(kv[0], len(order))))
    res["table2"] = {d: dict(sorted(by_m.items(), key=lambda kv: order.get(kv[0], len(order))))
                     for d, by_m in res["table2"].items()}
    (first, n_chains), = ranges
    res["first_chain"], res["protocol"] = first, dict(protocol, n_chains=n_chains)
    write(res, traces, out)


def _merge_runs(runs):
    chains = [c for r in runs for c in r["chains"]]
    cpu = [r.get("cpu_seconds") for r in runs]
    return {"chains": chains, "summary": summarise(chains), "seconds": sum(r["seconds"] for r in runs),
            "cpu_seconds": None if None in cpu else sum(cpu), "settings": runs[0]["settings"]}


def main(argv=None, observer=None):
    """Run the protocol (``argv`` as on the command line); ``observer`` is passed to every fit (``--n-jobs 1``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocol", choices=("paper", "long", "medium"), default="paper")
    ap.add_argument("--quick", action="store_true", help="smoke run (overrides --protocol)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--datasets", default="iris,wine,bcw", help="Table 2 datasets ('' to skip Table 2)")
    ap.add_argument("--skip-table1", action="store_true", help="run Table 2 only")
    ap.add_argument("--n-chains", type=int, default=None, help="override the protocol's number of chains")
    ap.add_argument("--chains", default=None, metavar="A:B",
                    help="run only chains A..B-1 of the protocol (same seeds as in a full run); see --merge")
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                    help="join result files (batches of chains, other methods or datasets) of one protocol and "
                         "seed into --output instead of running")
    ap.add_argument("--prune-start", choices=("paper", "reference"), default="paper",
                    help="HMC methods: the paper's prune warm start or the authors' code's positional copy "
                         "(RJHMCSettings's prune_start); 'reference' is recorded in the protocol")
    ap.add_argument("--numpyro-step-size", action="store_true",
                    help="HMC methods: NumPyro's step-size start (1, no doubling heuristic, kept across mass-matrix "
                         "windows) as in the authors' code (RJHMCSettings's step_size_search=False); recorded in "
                         "the protocol")
    ap.add_argument("--random-walk-splits", action="store_true",
                    help="HMC-DF: update split indices by uniform random-walk Metropolis as in the authors' code "
                         "(RJHMCSettings's split_index_update='random_walk'); recorded in the protocol")
    ap.add_argument("--log-leaves", default=None, metavar="DIR",
                    help="one HMC chain (--chains c:c+1, one method, --n-jobs 1): log its tree size at every "
                         "iteration to DIR as it runs and write its results to DIR (see --collect-leaves)")
    ap.add_argument("--collect-leaves", default=None, metavar="DIR",
                    help="join the chains of DIR (finished ones' results, stopped ones' logs) into --output "
                         "instead of running")
    ap.add_argument("--machine", default=None, help="with --collect-leaves: where the chains ran (recorded)")
    ap.add_argument("--dask", default=None, metavar="ADDRESS",
                    help="run the chains on a Dask cluster through joblib's dask backend: a scheduler address "
                         "(tcp://host:8786) or 'local' for a LocalCluster of --n-jobs single-threaded workers "
                         "on this machine; the results are those of the default local processes")
    ap.add_argument("--output", default=str(RECORDED / "rjhmc_tables"), help="output path without extension")
    args = ap.parse_args(argv)
    if args.merge:
        return merge(args.merge, Path(args.output))
    name = "quick" if args.quick else args.protocol
    if args.collect_leaves:
        if not args.machine:
            raise SystemExit("--collect-leaves needs --machine (where the chains ran)")
        return collect_leaves(Path(args.collect_leaves), name, _sampler_variants(args), args.machine,
                              Path(args.output))
    proto = dict(PROTOCOLS[name])
    if args.n_chains is not None:
        proto["n_chains"] = args.n_chains
    proto.update(_sampler_variants(args))  # part of the protocol, so batches with other variants never merge
    first = 0
    seed = args.seed
    if args.chains is not None:
        first, stop = (int(v) for v in args.chains.split(":"))
        if not 0 <= first < stop:
            raise SystemExit("--chains must be A:B with 0 <= A < B")
        proto["n_chains"] = stop - first
        # chain i of SeedSequence(seed) is chain i - first of this one (see BayesianTreeRegressor's random_state)
        seed = np.random.SeedSequence(args.seed, n_children_spawned=first)
    methods = [m for m in args.methods.split(",") if m]
    names = [d for d in args.datasets.split(",") if d]
    if args.log_leaves:
        if args.chains is None or proto["n_chains"] != 1 or len(methods) != 1 or methods[0] == "cgm" \
                or args.n_jobs != 1:
            raise SystemExit("--log-leaves runs one HMC chain: give --chains c:c+1, one of --methods hmc-df or "
                             "hmc-dfi, and --n-jobs 1")
        args.output = str(Path(args.log_leaves) / f"{name}_{methods[0]}_{first}")
        observer = _leaf_logger(Path(args.log_leaves) / f"leaves_{methods[0]}_{first}.txt", observer)
    if args.quick:
        names = names[:2]
    with contextlib.ExitStack() as stack:
        if args.dask is not None:
            _enter_dask(stack, args.dask, args.n_jobs)
        return _run(args, name, proto, first, seed, methods, names, observer)


def _sampler_variants(args):
    """The sampler variants the command line asks for, as a protocol records them (only those not the default)."""
    variants = {}
    if args.prune_start != "paper":
        variants["prune_start"] = args.prune_start
    if args.numpyro_step_size:
        variants["step_size_search"] = False
    if args.random_walk_splits:
        variants["split_index_update"] = "random_walk"
    return variants


def _leaf_logger(path, observer=None):
    """An observer that writes, per iteration, the leaves of the tree the move is proposed from (the chain's tree
    after the previous iteration) and the seconds since start, line-buffered, then calls ``observer``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    log = open(path, "w", buffering=1)  # closed when the process ends: the chain may be stopped by a time limit
    start = time.perf_counter()

    def observe(step):
        log.write(f"{step.current_leaves} {time.perf_counter() - start:.2f}\n")
        if observer is not None:
            observer(step)

    return observe


def collect_leaves(outdir, protocol, variants, machine, output):
    """Join the chains of ``outdir`` (``--log-leaves``) into one recorded run: the results of the chains that
    finished and the logged tree sizes of those a time limit stopped."""
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
    proto = dict(PROTOCOLS[protocol], **variants)
    res = {"protocol_name": protocol, "protocol": proto, "machine": machine, "chains": chains,
           "note": "n_leaves[i] is the tree size after iteration i; chains with complete=False were stopped by the "
                   "wall-clock limit after len(n_leaves) iterations (burn-in ends at iteration "
                   f"{proto['n_burnin']})."}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.with_suffix(".json").write_text(json.dumps(res, separators=(",", ":")))
    print(f"wrote {output.with_suffix('.json')}: " + ", ".join(
        f"{m}: {len(r)} chains ({sum(c['complete'] for c in r)} complete)" for m, r in chains.items()))


def _enter_dask(stack, address, n_jobs):
    """Route joblib (and so the estimators' chains) to a Dask cluster for the rest of ``stack``."""
    import joblib
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = stack.enter_context(LocalCluster(n_workers=max(n_jobs, 1), threads_per_worker=1,
                                                   dashboard_address=None))
        client = stack.enter_context(Client(cluster))
    else:
        client = stack.enter_context(Client(address))
    print(f"chains on Dask: {client}", flush=True)
    stack.enter_context(joblib.parallel_config(backend="dask"))


def _timed_here(run, args):
    """``run`` without its CPU seconds when its chains ran on Dask workers (this process only waited)."""
    if args.dask is not None and "cpu_seconds" in run:
        run["cpu_seconds"] = None
    return run


def _run(args, name, proto, first, seed, methods, names, observer):
    t_start = time.perf_counter()
    res = {"protocol_name": name, "protocol": proto, "seed": args.seed, "first_chain": first, "code": code_version(),
           "machine": f"{platform.machine()}, "
           f"n_jobs={args.n_jobs}" + ("" if args.dask is None else f", dask={args.dask}"), "table1": {}, "table2": {}}
    Xtr, ytr, Xte, yte = make_cgm(random_state=args.seed)
    for m in ([] if args.skip_table1 else methods):
        res["table1"][m] = _timed_here(fit(m, "cgm", "regression", (Xtr, ytr, Xte, yte), proto, args.n_jobs, seed,
                                           observer), args)
        if "error" in res["table1"][m]:
            print(f"Table 1 {m}: {res['table1'][m]['error']}", flush=True)
            continue
        s = res["table1"][m]["summary"]
        print(f"Table 1 {m:8s} test MSE {s['test_mse']['mean']:.4f} (per sample {s['test_mse_per_sample']['mean']:.4f}, "
              f"paper {PAPER_TABLE1[m]['test_mse']}), leaves {s['leaves']['mean']:.2f} "
              f"(paper {PAPER_TABLE1[m]['leaves']}), acceptance {s['acceptance']['mean']:.2f} % "
              f"(paper {PAPER_TABLE1[m]['acceptance']}) [{res['table1'][m]['seconds']:.0f} s]", flush=True)
    for d, data in real_datasets(names).items():
        res["table2"][d] = {}
        for m in methods:
            res["table2"][d][m] = _timed_here(fit(m, d, "classification", data, proto, args.n_jobs, seed, observer),
                                              args)
            if "error" in res["table2"][d][m]:
                print(f"Table 2 {d} {m}: {res['table2'][d][m]['error']}", flush=True)
                continue
            s = res["table2"][d][m]["summary"]
            print(f"Table 2 {d:5s} {m:8s} test acc {s['test_acc']['mean']:.3f} "
                  f"(paper {paper_table2(d, m, 'test_acc')}), leaves {s['leaves']['mean']:.2f}, "
                  f"acceptance {s['acceptance']['mean']:.1f} % [{res['table2'][d][m]['seconds']:.0f} s]", flush=True)
    res["total_seconds"] = time.perf_counter() - t_start
    # traces go to a compressed .npz next to the tables: "<table>/<dataset>/<method>/<name>"
    traces = {}
    for m, r in res["table1"].items():
        for tname, arr in r.pop("traces", {}).items():
            traces[f"table1/cgm/{m}/{tname}"] = arr
    for d, by_m in res["table2"].items():
        for m, r in by_m.items():
            for tname, arr in r.pop("traces", {}).items():
                traces[f"table2/{d}/{m}/{tname}"] = arr
    write(res, traces, Path(args.output))

if __name__ == "__main__":
    main()
