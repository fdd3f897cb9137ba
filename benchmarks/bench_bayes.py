"""RJHMC-Tree per-iteration time: tabular_trees.bayes vs the reference design (NumPyro).

Reference design (Cochrane et al.'s implementation): for every tree topology a new
NumPyro model is built and its NUTS kernel compiled, then k = 500 warm-up steps + 1
draw are run — twice per reversible-jump iteration (current tree and proposal; our sampler skips the proposal's
run when Eq. 18 has rejected the jump, the reference runs it); for
HMC-DF the split indices are updated by ``DiscreteHMCGibbs(random_walk=True)`` around
the NUTS kernel, as the authors' code does. We time that for exactly the (current,
proposed) trees that our own chain visits in the timed iterations, at identical
settings (same k, same fixed h — NumPyro has no h schedule without the authors'
patch —, target acceptance 0.8, max tree depth 10, priors of §3.3), and compare with
the same iterations of our compiled sampler.

Cells: both methods (HMC-DF, HMC-DFI) on three data sets —

* ``cgm``: the CGM data (800 training rows, 2 features, regression), h = 0.001
  (Table 4's final h), α = 0.45, β = 2.5;
* ``bcw``: the original Wisconsin breast cancer data (683 × 9 integer scores,
  classification), Table 4's final h (0.025) and α, β;
* ``collinear``: a collinear 630 × 7 two-class problem (:func:`make_collinear`, seed 0),
  h = 0.001, α = 0.95, β = 1.

Each cell starts from a posterior-sized tree (the last state of a short k = 100 chain
with the paper's h schedule), then times ``n`` iterations at k = 500 and fixed h.
The CGM faster settings (fewer NUTS warm-up steps) are reported with their
test MSE.

Usage: python benchmarks/bench_bayes.py [--quick] [--cells cgm:hmc-dfi,collinear:hmc-df ...] [--no-write]
(about 15 minutes on a quiet core; ``--quick`` is a smoke test of a few minutes that writes nothing).
``--against REV --against-label "..."`` instead times the working tree's package against the package at git
revision ``REV`` (described in words by the label, which the page shows) on the CGM data (both methods,
k = 500, h = 0.001; each side in its own interpreter, same chains). Both write a section of ``results/bayes.md``
(and the full run ``results/bayes.json``).
NumPyro/JAX are benchmark-only dependencies (pip install numpyro jax jaxlib). Without
them, our side is measured and the reference timings of the previous recording are
shown labelled as *recorded*, never as measured in this run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

# one core for the reference too (our sampler is single-threaded numba)
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
from harness import RESULTS, code_version, machine_summary, minmax_scale, write_section  # noqa: E402

from tabular_trees.bayes import (BayesianTreeRegressor, RJHMCSettings, TreePosterior, TreePrior,  # noqa: E402
                                 rjhmc_chain)
from tabular_trees.datasets import load_breast_cancer_original, make_cgm  # noqa: E402

K_WARMUP = 500
PAGE_TITLE = "RJHMC-Tree benchmark (`python benchmarks/bench_bayes.py`)"
# (task, alpha, beta, {method: (h_init of the start chain, h timed)}) — Table 4 for cgm and bcw
DATA = {
    "cgm": ("regression", 0.45, 2.5, {"hmc-df": (0.001, 0.001), "hmc-dfi": (0.01, 0.001)}),
    "bcw": ("classification", None, None, {"hmc-df": (0.025, 0.025), "hmc-dfi": (0.1, 0.025)}),
    "collinear": ("classification", 0.95, 1.0, {"hmc-df": (0.05, 0.001), "hmc-dfi": (0.05, 0.001)}),
}
BCW_PRIOR = {"hmc-df": (0.45, 2.5), "hmc-dfi": (0.95, 2.0)}  # Table 4


def make_collinear(n_samples=630, *, random_state=0):
    """A collinear two-class problem (a synthetic stand-in for shape measurements).

    One size factor drives areas, perimeters, axis lengths and convex area; ``size ~ lognormal(0, 0.25)``,
    ``shape ~ N(0, 1)`` and every ``noise`` an independent N(0, 1) draw. Columns: ``9e4·size²``,
    ``430·size + noise``, ``250·size·(1 + 0.05·shape)``, ``0.8 + 0.03·shape``, ``9.3e4·size²·(1 + 0.01·noise)``,
    ``0.7 + 0.05·noise``, ``1150·size + noise``; label ``size + 0.1·shape + 0.1·noise > 1``.
    """
    rng = np.random.default_rng(random_state)
    size = rng.lognormal(0.0, 0.25, n_samples)
    shape = rng.normal(0.0, 1.0, n_samples)
    noise = rng.normal(0.0, 1.0, (5, n_samples))
    X = np.column_stack([9e4 * size**2, 430 * size + noise[0], 250 * size * (1 + 0.05 * shape), 0.8 + 0.03 * shape,
                         9.3e4 * size**2 * (1 + 0.01 * noise[1]), 0.7 + 0.05 * noise[2], 1150 * size + noise[3]])
    y = (size + 0.1 * shape + 0.1 * noise[4] > 1).astype(np.int64)
    return X, y


def load_data(name):
    """Training inputs min–max scaled to [0, 1] (as the paper does), targets, task."""
    if name == "cgm":
        X, y, _, _ = make_cgm(random_state=0)
    elif name == "bcw":
        X, y = load_breast_cancer_original()
    else:
        X, y = make_collinear(random_state=0)
    return minmax_scale(X), y


def _numpyro_half_move(tree, Xs, y, task, use_simplex, h, seed, k_warmup=K_WARMUP):
    """Build + compile + run NUTS (k warm-up + 1 draw) for one topology, as the reference does.

    Returns the mean number of leapfrog steps per warm-up transition."""
    import jax
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import MCMC, NUTS, DiscreteHMCGibbs

    left, right = tree.left.tolist(), tree.right.tolist()
    inner = [n for n in range(tree.n_nodes) if left[n] >= 0]
    leaves = [n for n in range(tree.n_nodes) if left[n] < 0]
    p = Xs.shape[1]
    regression = task == "regression"
    onehot = None if regression else jnp.asarray(np.eye(int(y.max()) + 1)[y])

    def model(X, y):
        if inner:  # a stump has no split parameters
            tau = numpyro.sample("tau", dist.Beta(1.0, 1.0).expand([len(inner)]))
            if use_simplex:
                delta = numpyro.sample("delta", dist.Dirichlet(jnp.ones(p)).expand([len(inner)]))
            else:
                kappa = numpyro.sample("kappa", dist.Categorical(probs=jnp.ones(p) / p).expand([len(inner)]))
        phi = {0: jnp.ones(X.shape[0])}
        for j, n in enumerate(inner):  # topology unrolled into the traced program
            xj = X @ delta[j] if use_simplex else X[:, kappa[j]]
            psi = jax.nn.sigmoid((xj - tau[j]) / h)
            phi[left[n]] = phi[n] * (1 - psi)
            phi[right[n]] = phi[n] * psi
        if regression:
            mu = numpyro.sample("mu", dist.Normal(0.0, 1.0).expand([len(leaves)]))
            sigma = numpyro.sample("sigma", dist.InverseGamma(1.5, 1.5))
            pred = sum(phi[n] * mu[k] for k, n in enumerate(leaves))
            numpyro.sample("y", dist.Normal(pred, sigma), obs=y)
        else:  # Dirichlet–multinomial on the soft class counts of every leaf (class prior alpha = 1)
            counts = jnp.stack([phi[n] @ onehot for n in leaves])  # (leaves, classes)
            m = counts.shape[1]
            ll = (jax.scipy.special.gammaln(float(m)) + jax.scipy.special.gammaln(counts + 1.0).sum(1)
                  - jax.scipy.special.gammaln(counts.sum(1) + m)).sum()
            numpyro.factor("y", ll)

    kernel = NUTS(model, target_accept_prob=0.8, max_tree_depth=10)
    if inner and not use_simplex:
        kernel = DiscreteHMCGibbs(kernel, random_walk=True)
    mcmc = MCMC(kernel, num_warmup=k_warmup, num_samples=1, progress_bar=False)
    # warm-up then the draw (what ``mcmc.run`` does in one call), recording NUTS's leapfrog steps per transition
    field = "num_steps" if use_simplex or not inner else "hmc_state.num_steps"
    mcmc.warmup(jax.random.PRNGKey(seed), jnp.asarray(Xs), jnp.asarray(y), collect_warmup=True, extra_fields=(field,))
    steps = float(np.asarray(mcmc.get_extra_fields()[field]).mean())
    mcmc.run(mcmc.post_warmup_state.rng_key, jnp.asarray(Xs), jnp.asarray(y))
    jax.block_until_ready(mcmc.get_samples())
    return steps


def run_cell(name, method, n_it, n_ref, n_start, have_numpyro):
    task, a, b, hs = DATA[name]
    if name == "bcw":
        a, b = BCW_PRIOR[method]
    h0, h = hs[method]
    Xs, y = load_data(name)
    post = TreePosterior(Xs, y, task, use_simplex=method == "hmc-dfi", prior=TreePrior(alpha=a, beta=b))
    rjhmc_chain(post, n_iter=1, n_burnin=1, seed=99,
                sampler=RJHMCSettings(k_warmup=20, h_init=h, h_final=h))  # warm the numba cache
    # a posterior-sized start: the last kept state of a short k = 100 chain with the paper's h schedule
    start = rjhmc_chain(post, n_iter=n_start + 1, n_burnin=n_start, seed=1,
                        sampler=RJHMCSettings(k_warmup=100, h_init=h0, h_final=h))
    init = (start.trees[-1], float(start.sigmas[-1]) if task == "regression" else None)
    steps = []  # the chain's observer: per iteration, its wall time and the statistics of its NUTS runs
    out = rjhmc_chain(post, n_iter=n_it, n_burnin=0, seed=0,
                      sampler=RJHMCSettings(k_warmup=K_WARMUP, h_init=h, h_final=h), init=init,
                      observer=steps.append, record_topologies=True)
    per_iter = np.array([s.seconds for s in steps])
    leap = np.array([n.n_leapfrog / (K_WARMUP + 1) for s in steps for n in s.nuts])  # per transition (k + 1 draw)
    eps = np.array([float(n.step_size) for s in steps for n in s.nuts])
    visited = out.visited
    cell = dict(data=name, method=method, task=task, h=h, alpha=a, beta=b, k_warmup=K_WARMUP, n_rows=int(len(y)),
                n_features=int(Xs.shape[1]), n_iterations_timed=n_it, ours_s_per_iteration=float(per_iter.mean()),
                leapfrog_per_transition=float(leap.mean()), step_size_median=float(np.median(eps)),
                leaves_current_and_proposed=[[int(c.n_leaves), int(p.n_leaves)] for c, p in visited])
    if have_numpyro:
        idx = np.linspace(0, n_it - 1, n_ref).round().astype(int) if n_ref > 1 else np.array([n_it - 1])
        ref_times, ref_steps = [], []
        for i in idx:
            cur, prop = visited[i]
            t0 = time.perf_counter()
            ref_steps.append(_numpyro_half_move(cur, Xs, y, task, method == "hmc-dfi", h, seed=2 * int(i)))
            ref_steps.append(_numpyro_half_move(prop, Xs, y, task, method == "hmc-dfi", h, seed=2 * int(i) + 1))
            ref_times.append(time.perf_counter() - t0)
        ours_same = float(per_iter[idx].mean())
        ref = float(np.mean(ref_times))
        cell.update(reference="measured in this run", reference_iterations=idx.tolist(),
                    reference_s_per_iteration=ref, reference_s_each=ref_times,
                    reference_leapfrog_per_transition=float(np.mean(ref_steps)),
                    ours_leapfrog_per_transition_same_iterations=float(leap.reshape(-1, 2)[idx].mean()),
                    ours_s_per_iteration_same_iterations=ours_same, speedup=ref / ours_same)
    return cell


def faster_settings(quick):
    """Shorter NUTS warm-up on the CGM data (HMC-DFI, h 0.01 -> 0.001): time and accuracy of a full chain."""
    Xtr, ytr, Xte, yte = make_cgm(random_state=0)
    fast = []
    for k, n_iter, n_burn in ([(100, 40, 20)] if quick else [(100, 200, 100), (50, 200, 100)]):
        t0 = time.perf_counter()
        reg = BayesianTreeRegressor(method="hmc-dfi", n_iter=n_iter, n_burnin=n_burn,
                                    sampler=RJHMCSettings(k_warmup=k, h_init=0.01, h_final=0.001),
                                    random_state=0, standardize_y=False).fit(Xtr, ytr)  # paper: raw y
        el = time.perf_counter() - t0
        mse = float(np.mean((reg.predict(Xte) - yte) ** 2))
        fast.append(dict(k_warmup=k, n_iter=n_iter, n_burnin=n_burn, s_per_iteration=el / n_iter, test_mse=mse,
                         mean_leaves=float(reg.n_leaves_[0, n_burn:].mean()), acceptance=reg.acceptance_["all"]))
        print(f"faster setting k={k}: {el / n_iter:.3f} s / iteration, test MSE {mse:.4f}, "
              f"mean leaves {fast[-1]['mean_leaves']:.2f}", flush=True)
    return fast


def time_chain(spec):
    """Time RJHMC-Tree iterations on the CGM data with whichever ``tabular_trees`` is importable (``--against`` runs
    this once with the older revision's package and once with the working tree's, ``--time-chain SPEC``).

    ``spec``: ``method``, ``h_start`` (h_init of the short chain that finds a posterior-sized start), ``h`` (the
    timed h), ``n_start``, ``n_iter``, ``k_warmup``, ``seed``. Returns CPU and wall seconds per iteration, leapfrog
    steps per NUTS transition, mean leaves of the iterations' current and proposed trees and NUTS runs per
    iteration (two, or one where a rejected proposal's run is skipped). Uses only API that older revisions have.
    """
    X, y, _, _ = make_cgm(random_state=0)
    post = TreePosterior(minmax_scale(X), y, "regression", use_simplex=spec["method"] == "hmc-dfi",
                         prior=TreePrior(alpha=0.45, beta=2.5))
    h, k = spec["h"], spec["k_warmup"]
    rjhmc_chain(post, n_iter=1, n_burnin=1, seed=99, sampler=RJHMCSettings(k_warmup=20, h_init=h, h_final=h))  # compile
    start = rjhmc_chain(post, n_iter=spec["n_start"] + 1, n_burnin=spec["n_start"], seed=1,
                        sampler=RJHMCSettings(k_warmup=100, h_init=spec["h_start"], h_final=h))
    steps = []
    t0 = time.process_time()
    init = (start.trees[-1], float(start.sigmas[-1]))
    rjhmc_chain(post, n_iter=spec["n_iter"], n_burnin=0, seed=spec["seed"], init=init, observer=steps.append,
                sampler=RJHMCSettings(k_warmup=k, h_init=h, h_final=h))
    cpu = time.process_time() - t0
    return dict(cpu_s_per_iteration=cpu / spec["n_iter"],
                wall_s_per_iteration=float(np.mean([s.seconds for s in steps])),
                leapfrog_per_transition=float(np.mean([n.n_leapfrog / (k + 1) for s in steps for n in s.nuts])),
                mean_leaves=float(np.mean([[s.current_leaves, s.proposed_leaves] for s in steps])),
                nuts_runs_per_iteration=float(np.mean([len(s.nuts) for s in steps])),
                start_leaves=int(start.trees[-1].n_leaves))


def _run_timer(package_root, spec):
    """:func:`time_chain` in a fresh interpreter importing ``tabular_trees`` from ``package_root``."""
    env = dict(os.environ, PYTHONPATH=str(package_root), OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(Path(__file__)), "--time-chain", json.dumps(spec)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(rev, label, n_iter, seeds):
    """Cost per iteration on the CGM data (k = 500, h = 0.001), the package at ``rev`` (``label`` in words) against
    the working tree's, in the same run.

    Each side times the same chains (same posterior-sized start, same seeds) in its own interpreter, one core,
    with its defaults.
    """
    repo = Path(__file__).resolve().parent.parent
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "tabular_trees"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sides = [(label, tmp), (code_version(), repo)]
        for method, (h_start, h) in DATA["cgm"][3].items():  # (h of the start chain, h timed)
            for side, root in sides:
                runs = [_run_timer(root, dict(method=method, h_start=h_start, h=h, n_start=30, n_iter=n_iter,
                                              k_warmup=K_WARMUP, seed=seed)) for seed in seeds]
                row = dict(method=method, side=side, **{key: float(np.mean([r[key] for r in runs]))
                                                        for key in runs[0]})
                rows.append(row)
                print(f"[against {method}] {side}: {row['cpu_s_per_iteration']:.3f} CPU s / iteration, "
                      f"{row['leapfrog_per_transition']:.0f} leapfrog / transition, leaves {row['mean_leaves']:.2f}, "
                      f"{row['nuts_runs_per_iteration']:.2f} NUTS runs / iteration", flush=True)
    return rows


def against_markdown(label, rows, n_iter, seeds):
    lines = [f"## Cost per iteration against {label} (`python benchmarks/bench_bayes.py --against REV`)", "",
             f"Measured {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on {machine_summary()}; code: "
             f"{code_version()} against {label}; each side "
             "in its own interpreter on one core, in the same run. CGM data, k = 500, h = 0.001 (fixed, as "
             f"above), α = 0.45, β = 2.5; {len(seeds)} chains per side (seeds {', '.join(map(str, seeds))}) of "
             f"{n_iter} iterations each from the same posterior-sized start (the last tree of a 30-iteration k = 100 "
             "chain), after burn-in (Eq. 18, sampling move probabilities).", "",
             "| method | package | CPU s / iteration | NUTS runs / iteration | leapfrog / NUTS transition "
             "| mean leaves of the current and proposed trees | cost against the first row |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        base = next(b for b in rows if b["method"] == r["method"])
        lines.append(f"| {r['method']} | {r['side']} | {r['cpu_s_per_iteration']:.3f} | "
                     f"{r['nuts_runs_per_iteration']:.2f} | {r['leapfrog_per_transition']:.0f} | {r['mean_leaves']:.2f} | "
                     f"{r['cpu_s_per_iteration'] / base['cpu_s_per_iteration']:.2f} |")
    lines += ["", "The sides' chains can visit different trees (their acceptances can differ), and a NUTS run's cost "
              "grows steeply with its tree, so the mean leaves of the iterations' current and proposed trees are shown "
              "beside the cost. NUTS runs / iteration: after burn-in a rejected proposal's NUTS run is skipped "
              "(Eq. 18 does not use its draw), so an iteration makes one or two runs."]
    return "\n".join(lines) + "\n"


def markdown(result):
    lines = ["## Against the reference design: both methods, three data sets", "",
             f"Measured {result['date']} on {result['machine']}; code: {result.get('code', 'not recorded')}; one core "
             "for both sides "
             f"({'quick mode' if result['quick'] else 'full run'}; `python benchmarks/bench_bayes.py`)"
             + (f"; load average {result['load_average'][0]:.1f} → {result['load_average'][1]:.1f} (start → end)"
                if "load_average" in result else "") + ".", "",
             f"Setting: {result['setting']}", "",
             "| data | method | h | leaves (current, proposed) on the reference's iterations | ours s / iteration "
             "| leapfrog steps per NUTS transition, ours / reference | reference s / iteration | speed-up |",
             "|---|---|---|---|---|---|---|---|"]
    for c in result["cells"]:
        lv = [c["leaves_current_and_proposed"][i] for i in c.get("reference_iterations", [])]
        ours = c.get("ours_s_per_iteration_same_iterations", c["ours_s_per_iteration"])
        if "speedup" in c:
            ref, sp = f"{c['reference_s_per_iteration']:.2f}", f"**{c['speedup']:.1f}×**"
        elif "recorded_reference_s_per_iteration" in c:
            ref, sp = (f"{c['recorded_reference_s_per_iteration']:.2f} (recorded {c['recorded_reference_date']}, "
                       "not re-measured)", "–")
        else:
            ref, sp = "not measured (no numpyro)", "–"
        steps = (f"{c['ours_leapfrog_per_transition_same_iterations']:.0f} / "
                 f"{c['reference_leapfrog_per_transition']:.0f}" if "speedup" in c else
                 f"{c['leapfrog_per_transition']:.0f} / –")
        lines.append(f"| {c['data']} | {c['method']} | {c['h']} | {lv} | {ours:.3f} | {steps} | {ref} | {sp} |")
    lines += ["", "Same trees, same iterations, measured in the same run. 'ours s / iteration' is the mean over the "
              "iterations the reference was timed on.", ""]
    if result["faster_settings"]:
        lines += ["Faster settings (CGM data, HMC-DFI, h 0.01 → 0.001, one chain, seed 0):", "",
                  "| k warm-up | iterations (burn-in) | s / iteration | test MSE | mean leaves |", "|---|---|---|---|---|"]
        lines += [f"| {f['k_warmup']} | {f['n_iter']} ({f['n_burnin']}) | {f['s_per_iteration']:.3f} | "
                  f"{f['test_mse']:.4f} | {f['mean_leaves']:.2f} |" for f in result["faster_settings"]]
        lines += ["", "Paper (Table 1, k = 500, 1000 iterations, 10 chains): test MSE 0.041, mean leaves 8.15; "
                  "noise floor 0.04."]
    lines += ["", "Both samplers run the same model at the same settings, so where the leapfrog columns are close the "
              "speed-up is the ratio of the cost of one leapfrog step (one gradient) plus the reference's per-topology "
              "compilation. Where the time goes and why HMC-DFI needs many more steps at small h: "
              "[bayes_profile.md](bayes_profile.md) (`python benchmarks/profile_bayes.py evidence`)."]
    lines += ["", "Measure on a quiet machine. The reference's time per iteration depends on machine load much more than "
              "ours: the recording before this one, taken at load average 3.4–5.2, timed the same reference "
              "half-moves 1.3–2× slower than a quiet run and so overstated every speed-up (its CGM HMC-DFI cell read "
              "45×; a quiet run of an intermediate version of the current code, already faster per gradient than "
              "that recording's, read 24×). The reference's first timed iteration also carries "
              "JAX's one-off compilation; the reference times listed per iteration in [bayes.json](bayes.json) show the spread."]
    lines += ["", "What Table 1 costs at the full paper protocol, run whole: [table1_cost.md](table1_cost.md) "
              "(`python benchmarks/table1_cost.py`)."]
    for note in result.get("notes", []):
        lines += ["", note]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 2 iterations per cell, 1 on the reference; prints, writes nothing")
    ap.add_argument("--cells", default="", help="comma-separated data:method cells (default: all six)")
    ap.add_argument("--no-write", action="store_true", help="print only; do not overwrite the recorded results")
    ap.add_argument("--against", default="", metavar="REV",
                    help="instead of the reference comparison: cost per iteration on the CGM data, the package at git "
                         "revision REV against the working tree's (writes a section of results/bayes.md)")
    ap.add_argument("--against-label", default=None,
                    help="REV described in words for the results page (default: 'revision REV')")
    ap.add_argument("--time-chain", default=None, metavar="SPEC", help=argparse.SUPPRESS)  # used by --against
    ap.add_argument("--against-iterations", type=int, default=20)
    ap.add_argument("--against-seeds", default="0,1,2")
    args = ap.parse_args(argv)
    if args.time_chain:
        print(json.dumps(time_chain(json.loads(args.time_chain))))
        return None
    if args.against:
        seeds = [int(s) for s in args.against_seeds.split(",")]
        label = args.against_label or f"revision {args.against}"
        rows = against(args.against, label, args.against_iterations, seeds)
        text = against_markdown(label, rows, args.against_iterations, seeds)
        print(text)
        if not args.no_write:
            write_section(RESULTS / "bayes.md", "against", text, PAGE_TITLE)
            print("wrote", RESULTS / "bayes.md")
        return None
    n_it, n_ref, n_start = (2, 1, 6) if args.quick else (6, 2, 30)
    cells = [c.split(":") for c in args.cells.split(",")] if args.cells else \
        [(d, m) for d in DATA for m in ("hmc-df", "hmc-dfi")]
    try:
        import numpyro  # noqa: F401
        have_numpyro = True
    except ImportError:
        have_numpyro = False
        print("numpyro is not installed: our side only; reference timings are the previous recording's, "
              "labelled as recorded (pip install numpyro jax jaxlib).")
    previous = {}
    if (RESULTS / "bayes.json").exists():
        old = json.loads((RESULTS / "bayes.json").read_text())
        for c in old.get("cells", []):
            if "reference_s_per_iteration" in c:  # measured in that run
                previous[(c["data"], c["method"])] = (c["reference_s_per_iteration"], old.get("date", "?"))
            elif "recorded_reference_s_per_iteration" in c:  # carried over from an earlier run
                previous[(c["data"], c["method"])] = (c["recorded_reference_s_per_iteration"],
                                                      c["recorded_reference_date"])
    result = dict(setting=f"k = {K_WARMUP} NUTS warm-up steps + 1 draw per half-move, fixed h (NumPyro has no h "
                          "schedule without the authors' patch), target acceptance 0.8, max tree depth 10; "
                          "priors of §3.3; each cell starts from a posterior-sized tree.",
                  date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  machine=machine_summary(), code=code_version(),
                  quick=bool(args.quick), cells=[], faster_settings=[])
    load0 = os.getloadavg()[0]
    for name, method in cells:
        t0 = time.perf_counter()
        cell = run_cell(name, method, n_it, n_ref, n_start, have_numpyro)
        if not have_numpyro and (name, method) in previous:
            cell["recorded_reference_s_per_iteration"], cell["recorded_reference_date"] = previous[(name, method)]
        result["cells"].append(cell)
        sp = f"speed-up {cell['speedup']:.1f}×" if "speedup" in cell else "reference not measured"
        print(f"[{name} {method} h={cell['h']}] ours {cell['ours_s_per_iteration']:.3f} s / iteration, "
              f"{cell['leapfrog_per_transition']:.1f} leapfrog / transition, step {cell['step_size_median']:.4g}; "
              f"reference {cell.get('reference_s_per_iteration', float('nan')):.2f} s; {sp} "
              f"[{time.perf_counter() - t0:.0f} s]", flush=True)
    if not args.cells:
        result["faster_settings"] = faster_settings(args.quick)
    result["load_average"] = [load0, os.getloadavg()[0]]  # other work on the machine disturbs both sides
    if args.no_write or args.quick:  # a smoke test never replaces the recorded full run
        return result
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bayes.json").write_text(json.dumps(result, indent=2))
    write_section(RESULTS / "bayes.md", "reference", markdown(result), PAGE_TITLE)
    return result


if __name__ == "__main__":
    main()
