"""What Table 1 costs at the full paper protocol, measured on some of its chains.

Table 1 of Cochrane et al. is ten chains of 1000 iterations per HMC method (k = 500 NUTS warm-up steps per
half-move) plus the CGM baseline on the CGM data. This script runs chains ``A..B-1`` of HMC-DF and HMC-DFI exactly
as ``reproduce_rjhmc.py --protocol paper`` does (the paper's seeds, one process, so one core), times each fit, and
estimates the whole table as ten times the mean chain cost of each method plus the CGM baseline's recorded cost
(``rjhmc_paper.json``; its chains are cheap). Chains differ in the trees they visit, so the estimate carries the
spread of the chains measured; run it on a quiet machine (another busy core slows this one).

The recorded figure (``benchmarks/results/table1_cost.md``) is Table 1 run whole: 1.81 CPU-hours, every chain the
chapter's recorded chain. The ``long`` protocol of ``reproduce_rjhmc.py`` (k = 100) reproduces Table 1 in 0.52
CPU-hours and is the quick way to check it.

Usage::

    python benchmarks/table1_cost.py --chains 0:1            # about 10 minutes on one quiet core
    python benchmarks/table1_cost.py --from-json OUT.json    # summarise a reproduce_rjhmc.py run instead

Writes ``benchmarks/results/table1_cost.md``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from harness import RECORDED, RESULTS, load_script, machine_summary


def measure(chains: str) -> dict:
    """Run chains ``A:B`` of both HMC methods at the paper protocol on one core; return reproduce_rjhmc's result."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "table1_chains"
        load_script("reproduce_rjhmc").main(["--protocol", "paper", "--datasets", "", "--methods", "hmc-df,hmc-dfi",
                                             "--chains", chains, "--n-jobs", "1", "--output", str(out)])
        return json.loads(out.with_suffix(".json").read_text())


def _cost(run: dict) -> float:
    """A fit's cost in seconds: its CPU seconds where recorded (one process, ``--n-jobs 1``), else its wall time
    (the same on a quiet core; older result files hold only that)."""
    return run["cpu_seconds"] if run.get("cpu_seconds") is not None else run["seconds"]


def _code_label(res: dict) -> str:
    """The code version a run records, if it records one as a package version; else where to find it."""
    code = str(res.get("code", ""))
    return code if code.startswith("tabular-trees") else "as the run file records it"


def summarise(res: dict, source: str) -> str:
    first = res.get("first_chain", 0)
    n = res["protocol"]["n_chains"]
    full_chains = 10  # the paper protocol's chains per method
    whole = n == full_chains and "cgm" in res["table1"]  # the whole table was run: a measurement, not an estimate
    recorded = json.loads((RECORDED / "rjhmc_paper.json").read_text())["table1"]
    rows, total = [], 0.0
    for method in ("hmc-df", "hmc-dfi"):
        all_leaves = [c["leaves"] for c in recorded[method]["chains"]]  # the recorded run's ten chains
        r = res["table1"][method]
        per_chain = _cost(r) / n  # one process runs its chains one after the other
        estimate = full_chains * per_chain
        total += estimate
        leaves = r["summary"]["leaves"]["mean"]
        rows.append(f"| {method} | {first}–{first + n - 1} | {_cost(r):.0f} | {per_chain:.0f} | "
                    f"{per_chain / res['protocol']['n_iter']:.3f} | {leaves:.2f} | {min(all_leaves):.1f}–"
                    f"{max(all_leaves):.1f} (mean {sum(all_leaves) / len(all_leaves):.1f}) | {estimate:.0f} |")
    if "cgm" in res["table1"]:
        cgm, cgm_source = _cost(res["table1"]["cgm"]), "this run"
    else:
        cgm, cgm_source = recorded["cgm"]["seconds"], "recorded, `rjhmc_paper.json`"
    total += cgm
    cpu = all(res["table1"][m].get("cpu_seconds") is not None for m in res["table1"])
    lines = [
        "# Table 1 at the full paper protocol: measured cost", "",
        f"Measured {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on {machine_summary()}, "
        f"one process per core ({source}); code: {_code_label(res)}; seconds are "
        + ("CPU seconds of each fit's process. " if cpu else "wall seconds of each fit on its own core. ")
        + f"Protocol: the paper's "
        f"(k = {res['protocol']['k_warmup']}, {res['protocol']['n_iter']} iterations, "
        f"{res['protocol']['n_burnin']} burn-in, the paper's chain seeds).", "",
        "| method | chains run | seconds | seconds per chain | seconds per iteration | mean leaves after burn-in "
        "| the ten recorded chains' mean leaves | for 10 chains (s) |", "|---|---|---|---|---|---|---|---|",
        *rows, f"| cgm ({cgm_source}) | 0–9 | {cgm:.0f} | – | – | – | – | {cgm:.0f} |", ""]
    if whole:
        lines += [f"Table 1, run whole: **{total:.0f} s = {total / 3600:.2f} CPU-hours**.", ""]
    else:
        lines += [f"Estimated Table 1: **{total:.0f} s = {total / 3600:.2f} CPU-hours**. The estimate scales the "
                  "chains measured to ten; chains "
                  "that visit larger trees cost more, so it is as good as the chains measured are typical (compare "
                  "their sizes with the ten recorded chains' in the table).", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", default="0:1", metavar="A:B", help="which of the protocol's chains to run")
    ap.add_argument("--from-json", default=None, help="summarise this reproduce_rjhmc.py result instead of running")
    ap.add_argument("--out", default=None, help="default: results/table1_cost.md")
    args = ap.parse_args(argv)
    if args.from_json:
        res = json.loads(Path(args.from_json).read_text())
        source = f"a `reproduce_rjhmc.py --protocol paper --n-jobs 1` run, summarised from `{Path(args.from_json).name}`"
    else:
        res = measure(args.chains)
        source = f"`python benchmarks/table1_cost.py --chains {args.chains}`"
    text = summarise(res, source)
    out = args.out or RESULTS / "table1_cost.md"
    Path(out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
