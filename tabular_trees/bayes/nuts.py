"""The No-U-Turn sampler in numba, with Stan's warm-up adaptation.

* multinomial NUTS (Betancourt 2017; the variant NumPyro and Stan use): trajectories
  doubled in a random direction, progressive uniform sampling inside a new
  subtree and biased progressive sampling when it is merged, the generalised
  U-turn criterion on momentum sums checked for every sub-subtree, divergence
  when the energy error exceeds 1000;
* dual-averaging step size (Hoffman & Gelman 2014; γ = 0.05, t₀ = 10, κ = 0.75,
  target acceptance 0.8) and a diagonal mass matrix adapted in Stan's windows
  (75-step initial buffer, slow windows 25, 50, 100, …, 50-step terminal buffer,
  Stan's regularisation), step size re-initialised by the doubling heuristic at
  the end of each slow window;
* the split-softness schedule of Cochrane et al. (Eq. 20): h decreases linearly
  from ``h_init`` to ``h_final`` over the slow windows, stopping 100 steps
  before the last slow window ends;
* for HMC-DF, before every NUTS transition each split index κ is updated, in a
  random order, by Liu's (1996) Metropolised Gibbs step (default) or, as in the authors'
  code, by a uniform random-walk Metropolis step.

Everything runs on a flat parameter vector with the log-density chosen by an
integer model code, so the compiled code is reused for every tree topology. The
compiled code lives in ``_nuts_kernels``; its functions take their state as named tuples: the
density to sample (``_Target``: data, topology and workspace), the run's settings
(``_NutsConfig``) and the arrays it fills (``_NutsOutput``). This module validates, builds
those records from a :class:`NUTSSettings` and returns a :class:`NUTSResult`.
Randomness comes from numba's generator seeded inside the compiled function, so a
run is a deterministic function of its ``seed``.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from .._validation import check_int
from ._codes import GAUSS, SPLIT_FIXED, SPLIT_UPDATE_CODE
from ._nuts_kernels import _NutsConfig, _NutsOutput, _run_nuts
from ._posterior_kernels import _Topology, _TreeData
from ._settings import NUTSSettings
from .posterior import TreePosterior

__all__ = ["softness_schedule", "run_tree_nuts", "NUTSResult", "NUTSStats"]


@dataclasses.dataclass(frozen=True)
class NUTSStats:
    """Statistics of one NUTS run (:func:`run_tree_nuts`; also one entry of ``ChainStep.nuts``).

    Attributes
    ----------
    divergences, divergences_warmup : int
        Divergent transitions while sampling and during warm-up.
    step_size : float
        Final (adapted) step size.
    accept_stat : float
        Mean acceptance statistic of the sampling transitions.
    n_leapfrog : int
        Leapfrog steps (gradient evaluations) of the whole run, warm-up included.
    h : float
        Split softness at the end of the run.
    inverse_mass : ndarray of shape (dim,)
        Final diagonal inverse mass matrix.
    seconds : float
        Wall time of the compiled run.

    Examples
    --------
    >>> NUTSStats(divergences=0, divergences_warmup=1, step_size=0.3, accept_stat=0.8, n_leapfrog=70, h=0.01,
    ...           inverse_mass=np.ones(2), seconds=0.002).n_leapfrog
    70
    """

    divergences: int
    divergences_warmup: int
    step_size: float
    accept_stat: float
    n_leapfrog: int
    h: float
    inverse_mass: np.ndarray
    seconds: float


@dataclasses.dataclass(frozen=True)
class NUTSResult:
    """What :func:`run_tree_nuts` returns.

    Attributes
    ----------
    samples : ndarray of shape (n_samples, dim)
        Draws of the unconstrained vector θ.
    features : ndarray of shape (n_samples, n_nodes)
        Split indices of each draw (updated for HMC-DF, fixed for HMC-DFI).
    log_densities : ndarray of shape (n_samples,)
        Log-density of each draw (unconstrained, at the final softness).
    stats : NUTSStats

    Examples
    --------
    >>> r = NUTSResult(samples=np.zeros((1, 2)), features=np.zeros((1, 1), int), log_densities=np.zeros(1),
    ...                stats=None)
    >>> r.samples.shape
    (1, 2)
    """

    samples: np.ndarray
    features: np.ndarray
    log_densities: np.ndarray
    stats: NUTSStats


def _stats(info, inv_mass, seconds):
    """``_run_nuts``'s ``info`` array as a :class:`NUTSStats`."""
    return NUTSStats(divergences=int(info[1]), divergences_warmup=int(info[0]), step_size=info[2],
                     accept_stat=info[3], n_leapfrog=int(info[4]), h=info[5], inverse_mass=inv_mass, seconds=seconds)


def _adaptation_schedule(n_warmup):
    """Stan's warm-up windows as a list of ``(start, end)`` (inclusive) pairs.

    Examples
    --------
    >>> _adaptation_schedule(500)
    [(0, 74), (75, 99), (100, 149), (150, 249), (250, 449), (450, 499)]
    """
    if n_warmup <= 0:
        return []
    if n_warmup < 20:
        return [(0, n_warmup - 1)]
    start_buf, end_buf, init_win = 75, 50, 25
    if start_buf + end_buf + init_win > n_warmup:
        start_buf = int(0.15 * n_warmup)
        end_buf = int(0.1 * n_warmup)
        init_win = n_warmup - start_buf - end_buf
    sched = [(0, start_buf - 1)]
    end_start = n_warmup - end_buf
    size, start = init_win, start_buf
    while start < end_start:
        cur_start, cur_size = start, size
        if 3 * cur_size <= end_start - cur_start:
            size = 2 * cur_size
        else:
            cur_size = end_start - cur_start
        start = cur_start + cur_size
        sched.append((cur_start, start - 1))
    sched.append((end_start, n_warmup - 1))
    return sched


def softness_schedule(n_warmup):
    """First and last warm-up step of the linear h ramp of Eq. 20 (``(-1, -1)`` if none).

    The ramp starts with the first slow window and ends 100 steps before the last
    slow window ends (or at its end if the windows are shorter than that).

    Examples
    --------
    >>> softness_schedule(500)
    (75, 349)
    """
    n_warmup = check_int(n_warmup, "n_warmup", min_val=0)
    sched = _adaptation_schedule(n_warmup)
    if len(sched) < 3:
        return (0, n_warmup - 1) if n_warmup > 0 else (-1, -1)
    start = sched[1][0]
    end = sched[-2][1] - 100
    if end <= start:
        end = sched[-2][1]
    return start, end


def _schedule_arrays(n_warmup):
    sched = _adaptation_schedule(n_warmup)
    ws = np.array([s for s, _ in sched], dtype=np.int64)
    we = np.array([e for _, e in sched], dtype=np.int64)
    rs, re = softness_schedule(n_warmup)
    return ws, we, rs, re


def run_tree_nuts(posterior, tree, theta0, *, settings, n_samples=1, seed=0):
    """NUTS (HMC-within-Gibbs for HMC-DF) on the parameters of a fixed tree topology.

    Parameters
    ----------
    posterior : TreePosterior
    tree : SoftTree
        Topology and split indices (κ are updated for HMC-DF and returned).
    theta0 : ndarray
        Starting unconstrained vector (see :meth:`TreePosterior.pack`).
    settings : NUTSSettings
        Warm-up length, softness schedule, tree depth, target acceptance, step size and its
        search and (HMC-DF) the split-index update; a chain passes ``RJHMCSettings.nuts(use_simplex)``.
        With ``n_warmup=0`` no adaptation happens and every transition uses ``settings.step_size``
        and a unit mass matrix.
    n_samples : int, default=1
        Draws kept after warm-up.
    seed : int, default=0
        Seed of the compiled generator (0 ≤ seed < 2**32); a run is a deterministic function of it.

    Returns
    -------
    NUTSResult
        ``samples`` (n_samples, dim), ``features`` (n_samples, n_nodes) split indices,
        ``log_densities`` (n_samples,) (unconstrained, at ``h_final``) and ``stats``
        (:class:`NUTSStats`: divergences, step size, acceptance, leapfrog steps, h, inverse mass, seconds).

    Examples
    --------
    >>> from tabular_trees.bayes import NUTSSettings, SoftTree, TreePosterior
    >>> rng = np.random.default_rng(0); X = rng.random((50, 1)); y = (X[:, 0] > 0.5) + 0.1 * rng.normal(size=50)
    >>> post = TreePosterior(X, y, "regression", use_simplex=False)
    >>> tree = SoftTree(1).grow(0, 0, 0.3, None, 0.5)
    >>> res = run_tree_nuts(post, tree, post.pack(tree, sigma=1.0), settings=NUTSSettings(n_warmup=100),
    ...                     n_samples=20, seed=1)
    >>> res.samples.shape, res.stats.divergences
    ((20, 4), 0)
    """
    if not isinstance(posterior, TreePosterior):
        raise TypeError(f"posterior must be a TreePosterior, got {type(posterior).__name__}.")
    if not isinstance(settings, NUTSSettings):
        raise TypeError(f"settings must be a NUTSSettings (e.g. NUTSSettings(n_warmup=500, h_init=0.01), or "
                        f"RJHMCSettings(...).nuts(use_simplex)), got {type(settings).__name__}.")
    n_samples = check_int(n_samples, "n_samples", min_val=1, max_val=10**7)
    seed = check_int(seed, "seed", min_val=0, max_val=2**32 - 1)
    if theta0 is None:
        raise TypeError("theta0 must be a 1-D array of floats (the starting point; see TreePosterior.pack), "
                        "got None.")
    (theta0,) = posterior.check_state(tree, theta0, theta_name="theta0")
    ws, we, rs, re = _schedule_arrays(settings.n_warmup)
    split_update = SPLIT_FIXED if posterior.use_simplex else SPLIT_UPDATE_CODE[settings.split_index_update]
    cfg = _NutsConfig(settings.max_tree_depth, settings.target_accept, ws, we, rs, re, settings.h_init,
                      settings.h_final, split_update, settings.step_size_search, settings.step_size)
    out = _NutsOutput(np.zeros((n_samples, theta0.shape[0])), np.zeros((n_samples, tree.n_nodes), dtype=np.int64),
                      np.zeros(n_samples), np.zeros(6))
    data, topo = posterior.kernel_inputs(tree, feature=tree.feature.copy())
    t0 = time.perf_counter()
    d = theta0.shape[0]
    inv_mass = _run_nuts(theta0, int(seed), settings.n_warmup, n_samples, cfg, data, topo, out, np.ones(d))
    seconds = time.perf_counter() - t0
    return NUTSResult(samples=out.samples, features=out.feat_samples, log_densities=out.lps,
                      stats=_stats(out.info, inv_mass, seconds))


def _sample_gaussian(mean, cov, *, n_warmup=500, n_samples=1000, seed=0, max_tree_depth=10, target_accept=0.8):
    """Run the same compiled NUTS on a Gaussian target N(mean, cov) — a test of the sampler.

    Returns ``(samples, NUTSStats)``.

    Examples
    --------
    >>> s, stats = _sample_gaussian([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], n_samples=200, seed=0)
    >>> s.shape
    (200, 2)
    """
    mean = np.ascontiguousarray(mean, dtype=np.float64).ravel()
    cov = np.asarray(cov, dtype=np.float64)
    d = mean.shape[0]
    if cov.shape != (d, d) or not np.all(np.isfinite(cov)) or not np.all(np.isfinite(mean)):
        raise ValueError(f"cov must be a finite ({d}, {d}) matrix and mean finite.")
    prec = np.ascontiguousarray(np.linalg.inv(cov))
    n_warmup = check_int(n_warmup, "n_warmup", min_val=0)
    n_samples = check_int(n_samples, "n_samples", min_val=1)
    ws, we, rs, re = _schedule_arrays(n_warmup)
    i1 = np.zeros(1, dtype=np.int64)
    cfg = _NutsConfig(max_tree_depth, target_accept, ws, we, -1, -1, 1.0, 1.0, SPLIT_FIXED, True, 1.0)
    data = _TreeData(GAUSS, prec, np.zeros(1), mean, np.zeros(1), np.zeros((1, 1)), np.zeros(5), np.ones(1))
    topo = _Topology(i1 - 1, i1 - 1, i1.copy(), i1, i1)
    out = _NutsOutput(np.zeros((n_samples, d)), np.zeros((n_samples, 1), dtype=np.int64), np.zeros(n_samples),
                      np.zeros(6))
    t0 = time.perf_counter()
    inv_mass = _run_nuts(mean * 0.0 + 3.0, int(seed), n_warmup, n_samples, cfg, data, topo, out,
                         np.ones(mean.shape[0]))
    return out.samples, _stats(out.info, inv_mass, time.perf_counter() - t0)
