"""Compiled NUTS (``nuts.py``'s engine): multinomial NUTS transitions, Stan's warm-up adaptation, the
split-index updates of HMC-DF and the records the compiled run takes.

Private: :func:`tabular_trees.bayes.run_tree_nuts` validates its inputs, builds the records
(``_NutsConfig``, ``_NutsOutput``; ``_TreeData`` and ``_Topology`` from ``_posterior_kernels``) and
calls :func:`_run_nuts`. See ``nuts.py`` for the algorithm.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

from ._codes import SPLIT_GIBBS, SPLIT_RANDOM_WALK
from ._posterior_kernels import _NO_REFCOUNT, _log_posterior_ws, _new_workspace

_MAX_DELTA_H = 1000.0

_Target = namedtuple("_Target", "data topo ws")
_Target.__doc__ = """The density NUTS samples: a ``_TreeData``, a ``_Topology`` and the run's workspace
(``_new_workspace``); the softness h, which the warm-up changes, travels beside it."""

_NutsConfig = namedtuple("_NutsConfig", "max_depth target_accept win_start win_end ramp_start ramp_end "
                                        "h_init h_final split_update step_search step_size")
_NutsConfig.__doc__ = """Settings of one NUTS run: tree-depth limit, target acceptance, the mass-matrix
windows (first and last step of each, ``_schedule_arrays``), the h ramp (first and last
step, −1 for none), h at its start and end, how split indices are updated (a ``SPLIT_*`` code), whether
Stan's doubling heuristic picks the step size at the start and after each mass-matrix window
(``False``: NumPyro's default, keep the adapted step size) and the initial step size (the step size
of every transition when there is no warm-up)."""

_NutsOutput = namedtuple("_NutsOutput", "samples feat_samples lps info")
_NutsOutput.__doc__ = """Arrays a NUTS run fills: draws (n_samples, dim), split indices (n_samples, n_nodes),
log-densities (n_samples,) and ``info`` (6,), see ``_run_nuts``."""



@numba.njit(cache=True, inline="always")
def _lp(theta, grad, need_grad, h, tgt):
    return _log_posterior_ws(theta, grad, need_grad, True, h, tgt.data, tgt.topo, tgt.ws)


@numba.njit(cache=True, inline="always")
def _leapfrog(theta, r, grad, eps, inv_mass, h, tgt):
    d = theta.shape[0]
    for i in range(d):
        r[i] += 0.5 * eps * grad[i]
        theta[i] += eps * inv_mass[i] * r[i]
    lp = _lp(theta, grad, True, h, tgt)
    for i in range(d):
        r[i] += 0.5 * eps * grad[i]
    return lp


# Helpers of the leapfrog loop allocate nothing and are compiled without reference counting
# (``_posterior_kernels._NO_REFCOUNT``).
@numba.njit(**_NO_REFCOUNT)
def _kinetic(r, inv_mass):
    k = 0.0
    for i in range(r.shape[0]):
        k += inv_mass[i] * r[i] * r[i]
    return 0.5 * k


@numba.njit(**_NO_REFCOUNT)
def _turning(p_left, p_right, rho, inv_mass):
    # generalised criterion with NumPyro's centring of the momentum sum
    a = 0.0
    b = 0.0
    for i in range(rho.shape[0]):
        c = rho[i] - 0.5 * (p_left[i] + p_right[i])
        a += inv_mass[i] * p_left[i] * c
        b += inv_mass[i] * p_right[i] * c
    return a <= 0.0 or b <= 0.0


@numba.njit(**_NO_REFCOUNT)
def _turning_block(ck_p, ck_rho, lvl, p_right, rho_end, inv_mass):
    # _turning with p_left = ck_p[lvl] and rho = rho_end - ck_rho[lvl], without allocating (and without
    # row views, whose reference counting would cost more than the check)
    a = 0.0
    b = 0.0
    for i in range(rho_end.shape[0]):
        c = rho_end[i] - ck_rho[lvl, i] - 0.5 * (ck_p[lvl, i] + p_right[i])
        a += inv_mass[i] * ck_p[lvl, i] * c
        b += inv_mass[i] * p_right[i] * c
    return a <= 0.0 or b <= 0.0


@numba.njit(**_NO_REFCOUNT)
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a == np.inf or b == np.inf:
        m = max(a, b)
        return m + math.log(math.exp(a - m) + math.exp(b - m))
    # the larger term's exponential is e^0 = 1 exactly: skip computing it (same result, one exp fewer)
    if a >= b:
        return a + math.log(1.0 + math.exp(b - a))
    return b + math.log(math.exp(a - b) + 1.0)


@numba.njit(cache=True, inline="always")
def _copy3(a, b, c, a_src, b_src, c_src):
    for k in range(a.shape[0]):
        a[k] = a_src[k]
        b[k] = b_src[k]
        c[k] = c_src[k]


_N_WORK_VECTORS = 16  # rows of _nuts_transition's scratch before the 2 (max_depth + 1) U-turn checkpoints


@numba.njit(**_NO_REFCOUNT)
def _nuts_transition(theta, lp, grad, eps, inv_mass, max_depth, h, tgt, stats, work):
    """One multinomial-NUTS transition; updates theta/grad in place, returns the new log-density.

    ``stats`` receives [mean acceptance statistic, tree depth, n_leapfrog, diverged]. ``work``, a
    (``_N_WORK_VECTORS`` + 2 (max_depth + 1), d) array that ``_run_nuts`` allocates once, holds every
    vector the transition needs: a transition allocates nothing, so it is compiled without
    reference counting, which would otherwise cost a pair of atomic operations per array per
    density evaluation.
    """
    d = theta.shape[0]
    r0, thL, rL, gL, thR, rR, gR, prop, prop_g, rho = (work[0], work[1], work[2], work[3], work[4], work[5],
                                                        work[6], work[7], work[8], work[9])
    th, r, g, sub_prop, sub_g, sub_rho = work[10], work[11], work[12], work[13], work[14], work[15]
    ck_p = work[_N_WORK_VECTORS:_N_WORK_VECTORS + max_depth + 1]
    ck_rho = work[_N_WORK_VECTORS + max_depth + 1:_N_WORK_VECTORS + 2 * (max_depth + 1)]
    for i in range(d):
        r0[i] = np.random.standard_normal() / math.sqrt(inv_mass[i])
    H0 = -lp + _kinetic(r0, inv_mass)
    _copy3(thL, rL, gL, theta, r0, grad)
    _copy3(thR, rR, gR, theta, r0, grad)
    _copy3(prop, prop_g, rho, theta, grad, r0)
    prop_lp = lp
    log_w = 0.0
    sum_acc = 0.0
    n_steps = 0
    diverged = False
    depth = 0
    for k in range(ck_p.shape[0]):
        for i in range(d):
            ck_p[k, i] = 0.0
            ck_rho[k, i] = 0.0
    while depth < max_depth:
        direction = 1 if np.random.random() < 0.5 else -1
        if direction == 1:
            _copy3(th, r, g, thR, rR, gR)
        else:
            _copy3(th, r, g, thL, rL, gL)
        sub_logw = -np.inf
        sub_lp = 0.0
        for k in range(d):
            sub_rho[k] = 0.0
        turning = False
        n_sub = 1 << depth
        for i in range(n_sub):
            lpi = _leapfrog(th, r, g, direction * eps, inv_mass, h, tgt)
            dH = -lpi + _kinetic(r, inv_mass) - H0
            if not (dH == dH):
                dH = np.inf
            n_steps += 1
            sum_acc += 1.0 if dH <= 0.0 else math.exp(-dH)
            if dH > _MAX_DELTA_H:
                diverged = True
                break
            lw = -dH
            new_logw = _logaddexp(sub_logw, lw)
            if math.log(np.random.random()) < lw - new_logw:
                for k in range(d):
                    sub_prop[k] = th[k]
                    sub_g[k] = g[k]
                sub_lp = lpi
            sub_logw = new_logw
            for lvl in range(1, depth + 1):
                if i % (1 << lvl) == 0:
                    for k in range(d):
                        ck_p[lvl, k] = r[k]
                        ck_rho[lvl, k] = sub_rho[k]
            for k in range(d):
                sub_rho[k] += r[k]
            for lvl in range(1, depth + 1):
                if (i + 1) % (1 << lvl) == 0:
                    if _turning_block(ck_p, ck_rho, lvl, r, sub_rho, inv_mass):
                        turning = True
                        break
            if turning:
                break
        if diverged or turning:
            break
        if direction == 1:
            _copy3(thR, rR, gR, th, r, g)
        else:
            _copy3(thL, rL, gL, th, r, g)
        if math.log(np.random.random()) < sub_logw - log_w:
            for k in range(d):
                prop[k] = sub_prop[k]
                prop_g[k] = sub_g[k]
            prop_lp = sub_lp
        log_w = _logaddexp(log_w, sub_logw)
        for k in range(d):
            rho[k] += sub_rho[k]
        depth += 1
        if _turning(rL, rR, rho, inv_mass):
            break
    for k in range(d):
        theta[k] = prop[k]
        grad[k] = prop_g[k]
    stats[0] = sum_acc / max(n_steps, 1)
    stats[1] = depth
    stats[2] = n_steps
    stats[3] = 1.0 if diverged else 0.0
    return prop_lp


@numba.njit(cache=True)
def _reasonable_step_size(eps, theta, lp, grad, inv_mass, h, tgt):
    d = theta.shape[0]
    th = np.empty(d); r = np.empty(d); g = np.empty(d)
    last_dir = 0
    direction = 0
    target = math.log(0.8)
    while True:
        eps = eps * (2.0 ** direction)
        th[:] = theta; g[:] = grad
        for i in range(d):
            r[i] = np.random.standard_normal() / math.sqrt(inv_mass[i])
        H0 = -lp + _kinetic(r, inv_mass)
        lpn = _leapfrog(th, r, g, eps, inv_mass, h, tgt)
        dH = -lpn + _kinetic(r, inv_mass) - H0
        new_dir = 1 if target < -dH else -1  # NaN → -1
        last_dir = direction
        direction = new_dir
        if (eps <= 1e-300 and direction < 0) or (eps >= 1e300 and direction > 0):
            break
        if not (last_dir == 0 or direction == last_dir):
            break
    return eps


@numba.njit(cache=True)
def _split_nodes_in_random_order(left):
    """The internal nodes (``left >= 0``) in a random order: the order of a split-index sweep."""
    n_nodes = left.shape[0]
    inner = np.empty(n_nodes, dtype=np.int64)
    k = 0
    for n in range(n_nodes):
        if left[n] >= 0:
            inner[k] = n
            k += 1
    order = inner[:k].copy()
    np.random.shuffle(order)
    return order


@numba.njit(cache=True)
def _gibbs_features(theta, lp, grad, h, tgt):
    """Liu's Metropolised Gibbs update of every split index, in random order (HMC-DF);
    the split indices are ``tgt.topo.feature``, updated in place."""
    n_features = tgt.data.X.shape[1]
    left, feature = tgt.topo.left, tgt.topo.feature
    order = _split_nodes_in_random_order(left)
    lps = np.empty(n_features)
    changed = 0
    for n in order:
        cur = feature[n]
        for f in range(n_features):
            if f == cur:
                lps[f] = lp
            else:
                feature[n] = f
                lps[f] = _lp(theta, grad, False, h, tgt)
        feature[n] = cur
        # log(1 - π(cur)) relative to the normaliser, via the other values
        mx = -np.inf
        for f in range(n_features):
            if f != cur and lps[f] > mx:
                mx = lps[f]
        if mx == -np.inf:
            continue
        s_other = 0.0
        for f in range(n_features):
            if f != cur:
                s_other += math.exp(lps[f] - mx)
        u = np.random.random() * s_other
        acc = 0.0
        prop = -1
        for f in range(n_features):
            if f != cur:
                acc += math.exp(lps[f] - mx)
                if u < acc and prop < 0:
                    prop = f
        if prop < 0:
            prop = cur - 1 if cur > 0 else cur + 1
        # 1-π(cur) ∝ s_other·e^mx ; 1-π(prop) ∝ s_other·e^mx - e^{lp_prop} + e^{lp_cur}
        log_num = math.log(s_other) + mx
        tmp = s_other - math.exp(lps[prop] - mx) + math.exp(lps[cur] - mx)
        log_den = math.log(max(tmp, 1e-300)) + mx
        if math.log(np.random.random()) < log_num - log_den:
            feature[n] = prop
            lp = lps[prop]
            changed += 1
    lp = _lp(theta, grad, True, h, tgt)
    return lp


@numba.njit(cache=True)
def _random_walk_features(theta, lp, grad, h, tgt):
    """The authors' code's split-index update (NumPyro's ``DiscreteHMCGibbs(random_walk=True)``):
    every split index, in random order, proposes a feature uniformly from all p (its own
    included) and moves there with probability min(1, π(new)/π(current)). Same target as
    ``_gibbs_features`` (the uniform proposal is symmetric), one density evaluation per split
    instead of p − 1, but it mixes more slowly."""
    n_features = tgt.data.X.shape[1]
    left, feature = tgt.topo.left, tgt.topo.feature
    order = _split_nodes_in_random_order(left)
    for n in order:
        cur = feature[n]
        prop = np.random.randint(0, n_features)
        if prop == cur:  # accepted with probability one, nothing changes
            continue
        feature[n] = prop
        lp_prop = _lp(theta, grad, False, h, tgt)
        if math.log(np.random.random()) < lp_prop - lp:
            lp = lp_prop
        else:
            feature[n] = cur
    return _lp(theta, grad, True, h, tgt)


@numba.njit(cache=True, inline="always")
def _gibbs_then_nuts(theta, lp, grad, eps, inv_mass, h, cfg, tgt, stats, work):
    """One sampler step, shared by warm-up and sampling: an update of the split features
    (HMC-DF only), then one NUTS transition of the continuous parameters (its statistics in ``stats``)."""
    if cfg.split_update == SPLIT_GIBBS and tgt.data.X.shape[1] > 1:
        lp = _gibbs_features(theta, lp, grad, h, tgt)
    elif cfg.split_update == SPLIT_RANDOM_WALK and tgt.data.X.shape[1] > 1:
        lp = _random_walk_features(theta, lp, grad, h, tgt)
    if theta.shape[0] > 0:
        lp = _nuts_transition(theta, lp, grad, eps, inv_mass, cfg.max_depth, h, tgt, stats, work)
    return lp


@numba.njit(cache=True)
def _run_nuts(theta0, seed, n_warmup, n_samples, cfg, data, topo, out, inv_mass0):
    """Warm-up with adaptation then ``n_samples`` draws of the density given by ``data``
    (``_TreeData``) and ``topo`` (``_Topology``; its split indices are updated in place for
    HMC-DF), with the settings ``cfg`` (``_NutsConfig``), from the diagonal inverse mass matrix ``inv_mass0``;
    the draws go to ``out`` (``_NutsOutput``).

    ``out.info`` receives [divergences in warm-up, divergences in sampling, final step size,
    mean acceptance statistic while sampling, total leapfrog steps, final h].
    """
    np.random.seed(seed)
    d = theta0.shape[0]
    target_accept, win_end, ramp_start, ramp_end = cfg.target_accept, cfg.win_end, cfg.ramp_start, cfg.ramp_end
    h_init, h_final = cfg.h_init, cfg.h_final
    samples, feat_samples, lps, info = out.samples, out.feat_samples, out.lps, out.info
    # one workspace for every density evaluation of the run (nothing is allocated per call)
    tgt = _Target(data, topo, _new_workspace(data, topo.left.shape[0]))
    theta = theta0.copy()
    grad = np.zeros(d)
    inv_mass = inv_mass0.copy()
    stats = np.zeros(4)
    work = np.zeros((_N_WORK_VECTORS + 2 * (cfg.max_depth + 1), d))  # _nuts_transition's scratch
    h = h_init if n_warmup > 0 else h_final
    lp = _lp(theta, grad, True, h, tgt)
    n_div_w = 0.0
    n_div_s = 0.0
    n_leap = 0.0
    eps = cfg.step_size
    n_win = cfg.win_start.shape[0]
    if d > 0 and n_warmup > 0 and cfg.step_search:
        eps = _reasonable_step_size(eps, theta, lp, grad, inv_mass, h, tgt)
    # dual averaging state
    mu = math.log(10.0 * eps)
    x_avg = 0.0
    g_avg = 0.0
    t_da = 0
    # Welford state
    wm = np.zeros(d)
    wm2 = np.zeros(d)
    wn = 0
    win = 0
    h_step = 0.0
    if ramp_end >= ramp_start and ramp_start >= 0:
        h_step = (h_final - h_init) / (ramp_end - ramp_start + 1)
    for t in range(n_warmup):
        lp = _gibbs_then_nuts(theta, lp, grad, eps, inv_mass, h, cfg, tgt, stats, work)
        if d > 0:
            n_div_w += stats[3]
            n_leap += stats[2]
            # dual averaging
            t_da += 1
            g_avg = (1.0 - 1.0 / (t_da + 10.0)) * g_avg + (target_accept - stats[0]) / (t_da + 10.0)
            x_t = mu - math.sqrt(t_da) / 0.05 * g_avg
            wt = t_da ** (-0.75)
            x_avg = (1.0 - wt) * x_avg + wt * x_t
            eps = math.exp(x_avg) if t == n_warmup - 1 else math.exp(x_t)
            eps = min(max(eps, 1e-300), 1e300)
        # softness schedule
        if ramp_start <= t <= ramp_end:
            h = h + h_step
            if t == ramp_end:
                h = h_final
            lp = _lp(theta, grad, True, h, tgt)
        # mass matrix windows
        middle = 0 < win < n_win - 1
        if middle and d > 0:
            wn += 1
            for i in range(d):
                delta = theta[i] - wm[i]
                wm[i] += delta / wn
                wm2[i] += delta * (theta[i] - wm[i])
        if win < n_win and t == win_end[win]:
            if middle and d > 0:
                for i in range(d):
                    var = wm2[i] / (wn - 1) if wn > 1 else 1.0
                    inv_mass[i] = (wn / (wn + 5.0)) * var + 1e-3 * (5.0 / (wn + 5.0))
                wm[:] = 0.0
                wm2[:] = 0.0
                wn = 0
                if cfg.step_search:
                    eps = _reasonable_step_size(eps, theta, lp, grad, inv_mass, h, tgt)
                mu = math.log(10.0) + math.log(eps)
                x_avg = 0.0
                g_avg = 0.0
                t_da = 0
            win += 1
    if h != h_final:
        h = h_final
        lp = _lp(theta, grad, True, h, tgt)
    acc_sum = 0.0
    for s in range(n_samples):
        lp = _gibbs_then_nuts(theta, lp, grad, eps, inv_mass, h, cfg, tgt, stats, work)
        if d > 0:
            n_div_s += stats[3]
            n_leap += stats[2]
            acc_sum += stats[0]
        samples[s, :] = theta
        feat_samples[s, :] = topo.feature
        lps[s] = lp
    info[0] = n_div_w
    info[1] = n_div_s
    info[2] = eps
    info[3] = acc_sum / max(n_samples, 1)
    info[4] = n_leap
    info[5] = h
    return inv_mass
