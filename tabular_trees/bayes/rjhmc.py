"""RJHMC-Tree (Cochrane, Wills & Johnson; Algorithm 1) for one chain.

Each iteration:

1. run NUTS (HMC-DF: with Metropolised-Gibbs updates of the split indices; HMC-DFI:
   all parameters continuous) for ``k`` warm-up steps + one draw on the current tree,
   x → x';
2. draw a move from ``[p_grow, p_prune, p_stay]`` (separate warm-up and sampling
   probabilities) and a new topology: grow a uniformly chosen leaf, prune a uniformly
   chosen internal node whose children are both leaves, or stay;
3. draw the parameters the jump needs from their priors (threshold τ ~ U(0, 1), split
   index κ ~ U{1..p} or simplex Δ ~ Dir(α_Δ), and for regression the new leaf's μ);
   the grown node's left child keeps the old leaf's μ, x' → x'';
4. run NUTS again on the proposed tree, x'' → x*;
5. accept x* with the biased rule (Eq. 19) during burn-in and the reversible-jump rule
   (Eq. 18, with the HMC targets as intermediate distributions π*) afterwards;
   otherwise stay at x.

After burn-in the densities of x* and x cancel from Eq. 18, so the decision is made before step 4 and step 4
runs only for an accepted proposal (a rejected one's draw would be discarded). Its seed is drawn either way,
so the chain is the one that makes every run; a rejected iteration after burn-in costs one NUTS run, not two.

All densities in the acceptance ratio are densities of the constrained parameters
(τ, κ/Δ, μ, σ) under the tree-topology prior, so the proposal densities of the
drawn parameters cancel the priors of the new coordinates exactly.
"""

from __future__ import annotations

import math
import time
from collections import namedtuple

import numpy as np
from scipy.special import gammaln

from .._validation import check_generator_seed, check_int
from ._chain import ChainResult, ChainStep, _check_observer
from ._codes import MOVE_CODE, MOVE_GROW, MOVE_NAMES, MOVE_STAY
from ._settings import RJHMCSettings
from .nuts import run_tree_nuts
from .posterior import TreePosterior
from .soft_split_tree import SoftTree, _check_tree, soft_leaf_probabilities

__all__ = ["rjhmc_chain"]

_MOVES = MOVE_NAMES[MOVE_GROW:MOVE_STAY + 1]  # the moves RJHMC-Tree proposes

_State = namedtuple("_State", "tree theta sigma log_posterior")
_State.__doc__ = """A chain's state: the tree (constrained parameters, split indices), its unconstrained
vector θ, the noise σ (None for classification) and the constrained log-posterior at the chain's h."""

# After burn-in a rejected proposal's NUTS run is skipped (its draw would be discarded and Eq. 18 does not use it);
# False makes every run, as Algorithm 1 is written: the tests check that both give the same chain.
_SKIP_UNUSED_PROPOSAL_RUNS = True


def _log_prior_new(posterior, feature, threshold, simplex, value):
    """Prior log-density of the parameters a grow move adds (τ ~ U(0,1) contributes 0)."""
    p = posterior.n_features
    lp = 0.0
    if posterior.use_simplex:
        a = posterior.hyp[4]
        lp += gammaln(p * a) - p * gammaln(a) + (a - 1.0) * float(np.sum(np.log(simplex)))
    else:
        lp -= math.log(p)
    if posterior.regression:
        m, s = posterior.hyp[0], posterior.hyp[1]
        lp += -0.5 * ((value - m) / s) ** 2 - math.log(s) - 0.5 * math.log(2 * math.pi)
    return lp


def _reading_order(tree):
    """Internal nodes in pre-order and leaves left to right (the reference implementation's order)."""
    inner, leaves = [], []
    stack = [0]
    while stack:
        n = stack.pop()
        if tree.left[n] < 0:
            leaves.append(n)
        else:
            inner.append(n)
            stack += [int(tree.right[n]), int(tree.left[n])]
    return np.asarray(inner, dtype=np.int64), np.asarray(leaves, dtype=np.int64)


def _positional_prune_start(old, new):
    """The reference code's warm start after a prune (``prune_start="reference"``).

    ``jodie-c/RJHMC-Tree`` (``src/rjhmc-tree/rjhmc-tree.py``, lines 255–285) fills the
    proposed tree by position: the i-th internal node in pre-order receives the split
    index, threshold (and simplex) of the current tree's i-th internal node in pre-order,
    and the i-th leaf from the left the i-th leaf value. After a prune every internal node
    after the pruned one (in pre-order) therefore gets its predecessor's split, and every
    leaf after the merged one its predecessor's value; only pruning the last prunable node
    in pre-order leaves the values where they were. Returns a new tree.
    """
    oi, ol = _reading_order(old)
    ni, nl = _reading_order(new)
    t = new.copy()
    t.feature[ni] = old.feature[oi[:ni.shape[0]]]
    t.threshold[ni] = old.threshold[oi[:ni.shape[0]]]
    t.simplex[ni] = old.simplex[oi[:ni.shape[0]]]
    t.value[nl] = old.value[ol[:nl.shape[0]]]
    return t


def _propose_move(posterior, tree, move, probs, rng, prune_start="paper"):
    """Apply a grow / prune / stay proposal to ``tree`` (constrained parameters filled in).

    Returns ``(new_tree, log_q_ratio, move_done)`` where ``log_q_ratio`` is
    log q_nm(x' | x'') − log q_mn(x'' | x') including the densities of the drawn
    parameters, and ``move_done`` is the move actually made (a prune of a single-leaf
    tree becomes a stay).

    Examples
    --------
    >>> from tabular_trees.bayes.posterior import TreePosterior
    >>> rng = np.random.default_rng(0); post = TreePosterior(rng.random((10, 2)), rng.random(10), "regression", False)
    >>> t, lq, mv = _propose_move(post, SoftTree(2), "grow", (0.5, 0.25, 0.25), rng)
    >>> t.n_leaves, mv
    (2, 'grow')
    """
    if move not in _MOVES:
        raise ValueError(f"move must be one of {_MOVES}, got {move!r}.")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got {rng!r}.")
    p_grow, p_prune, _ = probs
    if p_grow <= 0 or p_prune <= 0:
        raise ValueError("probs must give grow and prune positive probabilities.")
    p = posterior.n_features
    if move == "grow":
        leaves = tree.leaves()
        k = leaves.shape[0]
        leaf = int(rng.choice(leaves))
        tau = float(rng.random())
        if posterior.use_simplex:
            simplex = rng.dirichlet(np.full(p, posterior.hyp[4]))
            simplex = np.clip(simplex, 1e-12, None)
            simplex /= simplex.sum()
            feat = 0
        else:
            simplex = None
            feat = int(rng.integers(p))
        value = float(rng.normal(posterior.hyp[0], posterior.hyp[1])) if posterior.regression else 0.0
        new = tree.grow(leaf, feat, tau, simplex, value)
        n_f = new.prunable_nodes().shape[0]
        log_q = math.log(p_prune / n_f) - math.log(p_grow / k) - _log_prior_new(posterior, feat, tau, simplex, value)
        return new, log_q, "grow"
    if move == "prune":
        cand = tree.prunable_nodes()
        if cand.shape[0] == 0:
            return tree.copy(), 0.0, "stay"
        node = int(rng.choice(cand))
        new, removed = tree.prune(node)
        if prune_start == "reference":
            new = _positional_prune_start(tree, new)
        k_new = new.n_leaves
        log_q = (math.log(p_grow / k_new)
                 + _log_prior_new(posterior, removed["feature"], removed["threshold"], removed["simplex"],
                                  removed["right_value"])
                 - math.log(p_prune / cand.shape[0]))
        return new, log_q, "prune"
    return tree.copy(), 0.0, "stay"


def _init_state(posterior, rng):
    """A one-split tree (the reference implementation's initial tree) with random parameters.

    The split index is uniform; every continuous coordinate is uniform(−2, 2) in
    unconstrained space, which is NumPyro's ``init_to_uniform``.
    """
    root = SoftTree(posterior.n_features, posterior.use_simplex)
    tree = root.grow(0, int(rng.integers(posterior.n_features)), 0.5, None, 0.0)
    theta = rng.uniform(-2.0, 2.0, size=posterior.dim(tree))
    return posterior.unpack(tree, theta)


def _leaf_values_given_splits(posterior, tree, sigma, h, rng):
    """``tree`` with its leaf values drawn from their Gaussian conditional given the splits and σ (regression).

    With φ the rows' leaf probabilities at softness ``h`` the likelihood is Gaussian in μ, so with the prior
    μ_k ~ N(m, s²) the conditional is N(A⁻¹b, A⁻¹), A = ΦᵀWΦ/σ² + I/s², b = ΦᵀΣy/σ² + m/s² (rows grouped as in the
    posterior: W their counts, Σy their sums of y).
    """
    phi = soft_leaf_probabilities(tree, posterior.X, h)
    m, s = posterior.hyp[0], posterior.hyp[1]
    a = (phi.T * posterior.w) @ phi / sigma**2 + np.eye(phi.shape[1]) / s**2
    b = phi.T @ posterior.ysum / sigma**2 + m / s**2
    chol = np.linalg.cholesky(a)
    mean = np.linalg.solve(a, b)
    draw = mean + np.linalg.solve(chol.T, rng.standard_normal(phi.shape[1]))
    new = tree.copy()
    new.value[tree.leaves()] = draw
    return new


def _check_init(posterior, init):
    """The starting ``(tree, sigma)`` a caller passed, checked against the posterior."""
    if not isinstance(init, (tuple, list)) or len(init) != 2:
        raise TypeError("init must be None or a pair (SoftTree, sigma).")
    tree, sigma = init
    _check_tree(tree, "init[0]")
    if tree.n_features != posterior.n_features or tree.use_simplex != posterior.use_simplex:
        raise ValueError("init[0] must be a SoftTree matching the posterior's features and split type.")
    if posterior.regression and not (isinstance(sigma, (int, float, np.floating, np.integer))
                                     and not isinstance(sigma, bool) and np.isfinite(sigma) and sigma > 0):
        raise ValueError("init[1] (sigma) must be a positive number for regression.")
    return tree.copy(), sigma


def _leg_seed(rng):
    """The seed of one NUTS run, drawn from the chain's generator (one draw per run, made or skipped)."""
    return int(rng.integers(2**31 - 1))


def _nuts_leg(posterior, tree, theta, settings, h, seed):
    """One NUTS run (warm-up + one draw) from ``(tree, theta)``; returns the new ``_State`` and the run's stats."""
    res = run_tree_nuts(posterior, tree, theta, settings=settings, seed=seed)
    new = tree.copy()
    new.feature = res.features[0].copy()
    new, sigma = posterior.unpack(new, res.samples[0])
    theta = res.samples[0]
    return _State(new, theta, sigma, posterior.log_posterior(new, theta, h, on_overflow="return")), res.stats


def rjhmc_chain(posterior, *, n_iter, n_burnin, seed, sampler=None, observer=None, record_topologies=False,
                init=None):
    """Run one RJHMC-Tree chain (Algorithm 1) and return its samples and traces.

    Parameters
    ----------
    posterior : TreePosterior
    n_iter, n_burnin : int
        Total iterations and how many of them are burn-in (Eq. 19 rule, warm-up move
        probabilities); samples are kept after burn-in.
    seed : int, Generator, SeedSequence, RandomState or None
        An int in [0, 2**32 - 1] seeds ``numpy.random.default_rng``; a Generator is used as it is.
    sampler : RJHMCSettings or None, default=None
        NUTS warm-up length ``k_warmup``, the softness schedule ``h_init`` → ``h_final``
        (Eq. 20), the move probabilities, the other NUTS settings (every NUTS run uses
        ``sampler.nuts(posterior.use_simplex)``) and ``prune_start``; ``None`` means
        ``RJHMCSettings()``. ``prune_start="paper"`` (§3.4.1
        of the paper): after a prune every surviving node keeps its own split and threshold,
        the merged leaf its left child's value. ``"reference"``: the authors' code's
        positional copy — internal nodes in pre-order and leaves left to right receive the
        current tree's values *by position*, which after a prune shifts every split after
        the pruned node (and every leaf value after the merged leaf) by one place. The
        acceptance ratio is unchanged (it uses the pruned node's parameters in both cases),
        so ``"reference"`` changes only where the proposal's NUTS run starts.
    observer : callable, optional
        Called after every iteration with a :class:`ChainStep` (the move, the tree sizes, the
        acceptance, the statistics and wall time of the iteration's NUTS runs — two, or one
        after burn-in when the proposal is rejected —, the iteration's wall time): progress
        bars, traces, profiles.
    record_topologies : bool, default=False
        Also return ``visited``: per iteration, the (current, proposed) trees the two
        NUTS runs were applied to (used by the benchmark to time the reference design
        on exactly the same topologies).
    init : tuple (SoftTree, sigma) or None
        Starting state (constrained parameters; ``sigma`` is ignored for classification).
        ``None`` starts, as the reference implementation does, from a decision stump
        (one split, two leaves) with NumPyro's uniform(−2, 2) initialisation in
        unconstrained space. Pruning may still reach the single-leaf tree, which the
        Bayesian CART prior includes (the reference never prunes its root).

    Notes
    -----
    The data scaling is the caller's: the posterior sees X and y exactly as given to
    ``TreePosterior`` (the paper min–max scales X to [0, 1] and leaves y unscaled; the
    estimators min–max scale X and, by default, standardise y).

    Returns
    -------
    ChainResult
        ``trees`` (kept SoftTree samples with constrained τ, κ/Δ, μ), ``sigmas``, ``leaf_probs``
        (classification), and per-iteration traces ``n_leaves``, ``log_posterior``, ``move``
        (0 grow, 1 prune, 2 stay), ``accepted``, ``log_alpha`` (the log acceptance ratio of the
        iteration's proposal, Eq. 19 in burn-in and Eq. 18 after), ``divergences`` (summed over
        the NUTS runs the iteration made).

    Examples
    --------
    >>> from tabular_trees.bayes import RJHMCSettings, TreePosterior, TreePrior
    >>> rng = np.random.default_rng(0); X = rng.random((40, 1)); y = 2.0 * (X[:, 0] > 0.5)
    >>> post = TreePosterior(X, y, "regression", use_simplex=False, prior=TreePrior(alpha=0.45, beta=2.5))
    >>> steps = []
    >>> out = rjhmc_chain(post, n_iter=4, n_burnin=2, seed=0, observer=steps.append,
    ...                   sampler=RJHMCSettings(k_warmup=30, h_init=0.05, h_final=0.05))
    >>> len(out.trees), out.n_leaves.shape, len(steps), len(steps[0].nuts)
    (2, (4,), 4, 2)
    """
    if not isinstance(posterior, TreePosterior):
        raise TypeError(f"posterior must be a TreePosterior, got {type(posterior).__name__}.")
    n_iter = check_int(n_iter, "n_iter", min_val=1, max_val=10**6)
    n_burnin = check_int(n_burnin, "n_burnin", min_val=0, max_val=n_iter)
    if sampler is None:
        sampler = RJHMCSettings()
    if not isinstance(sampler, RJHMCSettings):
        raise TypeError(f"sampler must be an RJHMCSettings or None, got {type(sampler).__name__}.")
    nuts = sampler.nuts(posterior.use_simplex)
    observer = _check_observer(observer)
    rng = check_generator_seed(seed, "seed")
    tree, sigma = _init_state(posterior, rng) if init is None else _check_init(posterior, init)
    theta = posterior.pack(tree, sigma)
    h = nuts.h_final
    state = _State(tree, theta, sigma, posterior.log_posterior(tree, theta, h, on_overflow="return"))
    tr_leaves = np.zeros(n_iter, dtype=np.int64)
    tr_lp = np.zeros(n_iter)
    tr_move = np.zeros(n_iter, dtype=np.int64)
    tr_acc = np.zeros(n_iter, dtype=bool)
    tr_la = np.zeros(n_iter)
    tr_div = np.zeros(n_iter, dtype=np.int64)
    tr_div_w = np.zeros(n_iter, dtype=np.int64)
    trees, sigmas, leaf_probs = [], [], []
    visited = []
    for it in range(n_iter):
        t_start = time.perf_counter()
        burn = it < n_burnin
        probs = sampler.warmup_probs if burn else sampler.sampling_probs
        # 1. HMC on the current tree: x -> x'
        moved, stats1 = _nuts_leg(posterior, state.tree, state.theta, nuts, h, _leg_seed(rng))
        # 2-4. topology move with prior draws: x' -> x''
        move = _MOVES[int(rng.choice(3, p=np.asarray(probs)))]
        tree2, log_q, move = _propose_move(posterior, moved.tree, move, probs, rng, sampler.prune_start)
        if burn and sampler.burnin_leaf_draw and posterior.regression:
            tree2 = _leaf_values_given_splits(posterior, tree2, moved.sigma, h, rng)
        theta2 = posterior.pack(tree2, moved.sigma)
        lp_x2 = posterior.log_posterior(tree2, theta2, h, on_overflow="return")
        seed2 = _leg_seed(rng)  # the proposal's run's seed, drawn whether or not the run is made
        if record_topologies:
            visited.append((state.tree.copy(), tree2.copy()))
        # 5-6. HMC on the proposal (x'' -> x*) and acceptance
        lp_x, lp_x1 = state.log_posterior, moved.log_posterior
        stats2 = None
        if burn:  # Eq. 19 judges the proposal's NUTS draw x*
            proposal, stats2 = _nuts_leg(posterior, tree2, theta2, nuts, h, seed2)
            log_alpha = proposal.log_posterior - lp_x + log_q
        else:
            # Eq. 18 with π* = the HMC targets: π(x*) and π(x) cancel, so the ratio is known before the proposal's
            # NUTS run, and a rejected proposal's run (whose draw would be discarded) is not made
            log_alpha = lp_x2 + log_q - lp_x1
        accept = bool(np.isfinite(log_alpha) and math.log(rng.random()) < min(0.0, log_alpha))
        if not burn and (accept or not _SKIP_UNUSED_PROPOSAL_RUNS):
            proposal, stats2 = _nuts_leg(posterior, tree2, theta2, nuts, h, seed2)
        current_leaves = state.tree.n_leaves
        if accept:
            state = proposal
        tr_leaves[it] = state.tree.n_leaves
        tr_lp[it] = state.log_posterior
        tr_move[it] = MOVE_CODE[move]
        tr_acc[it] = accept
        tr_la[it] = log_alpha
        runs = (stats1,) if stats2 is None else (stats1, stats2)
        tr_div[it] = sum(r.divergences for r in runs)
        tr_div_w[it] = sum(r.divergences_warmup for r in runs)
        if not burn:
            trees.append(state.tree)
            sigmas.append(state.sigma)
            if not posterior.regression:
                leaf_probs.append(posterior.leaf_class_probabilities(state.tree, h))
        if observer is not None:
            observer(ChainStep(iteration=it, burn_in=burn, move=move, current_leaves=current_leaves,
                               proposed_leaves=tree2.n_leaves, accepted=accept, log_alpha=float(log_alpha),
                               nuts=runs, seconds=time.perf_counter() - t_start))
    return ChainResult(trees=trees, sigmas=np.array([s if s is not None else np.nan for s in sigmas]),
                       leaf_probs=leaf_probs, n_leaves=tr_leaves, log_posterior=tr_lp, move=tr_move, accepted=tr_acc,
                       log_alpha=tr_la, divergences=tr_div, divergences_warmup=tr_div_w, h=h, visited=visited)
