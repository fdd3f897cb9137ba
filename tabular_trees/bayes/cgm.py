"""Chipman, George & McCulloch (1998) Bayesian CART: random-walk Metropolis–Hastings.

Hard splits "right if x_v > c" with c an observed value of x_v in the node (not its
maximum). The tree prior is CGM's: a node at depth d splits with probability
α(1+d)^−β if it has an available split (0 otherwise); the rule picks a feature
uniformly among those that can split the node, then a value uniformly among its
available values. Leaf parameters are integrated out:

* regression — CGM's mean-shift model with a common variance: μ_i ~ N(μ̄, σ²/a),
  σ² ~ InvGamma(ν/2, νλ/2), marginal (CGM 1998, Eq. 12 with its constant);
* classification — Dirichlet(1) leaf probabilities, Dirichlet–multinomial marginal.

Moves: grow (0.25), prune (0.25), change (0.4), swap (0.1) with the Hastings ratios of
each move; impossible or invalid proposals are rejected.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from .._validation import as_1d_target, as_float_matrix, as_regression_target, check_int, check_option
from ._codes import MOVE_CHANGE, MOVE_CODE, MOVE_GROW, MOVE_NAMES, MOVE_PRUNE, MOVE_SWAP
from ._settings import CGMPrior, _check_probs
from .rjhmc import ChainResult
from .soft_tree import SoftTree

__all__ = ["cgm_chain"]

_CGM_MOVES = tuple(MOVE_NAMES[c] for c in (MOVE_GROW, MOVE_PRUNE, MOVE_CHANGE, MOVE_SWAP))  # as move_probs orders them


def _node_rows(tree, X):
    rows = [None] * tree.n_nodes
    rows[0] = np.arange(X.shape[0])
    for n in range(tree.n_nodes):
        if tree.left[n] >= 0:
            r = rows[n]
            go_right = X[r, tree.feature[n]] > tree.threshold[n]
            rows[tree.left[n]] = r[~go_right]
            rows[tree.right[n]] = r[go_right]
    return rows


def _available(X, r):
    """{feature: sorted candidate split values} for the rows ``r``."""
    out = {}
    if r.shape[0] < 2:
        return out
    for v in range(X.shape[1]):
        vals = np.unique(X[r, v])
        if vals.shape[0] >= 2:
            out[v] = vals[:-1]
    return out


def _log_rule_prob(avail, v, c):
    if v not in avail:
        return -np.inf
    vals = avail[v]
    if not np.any(vals == c):
        return -np.inf
    return -math.log(len(avail)) - math.log(vals.shape[0])


def _cgm_log_prior(tree, X, alpha, beta, rows=None):
    """CGM tree prior log p(T) including the split-rule probabilities (−inf if a rule is invalid).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0]])
    >>> round(_cgm_log_prior(SoftTree(1), X, 0.45, 2.5), 6)
    -0.597837
    """
    rows = _node_rows(tree, X) if rows is None else rows
    lp = 0.0
    for n in range(tree.n_nodes):
        avail = _available(X, rows[n])
        ps = alpha * (1.0 + tree.depth[n]) ** (-beta) if avail else 0.0
        if tree.left[n] >= 0:
            if ps == 0.0:
                return -np.inf
            lp += math.log(ps) + _log_rule_prob(avail, int(tree.feature[n]), tree.threshold[n])
        else:
            lp += math.log1p(-ps)
    return lp


def _cgm_log_marginal(tree, X, y, task, hyper, rows=None):
    """Log marginal likelihood p(Y | X, T) with the leaf parameters integrated out.

    ``hyper`` is ``(nu, lam, a, mubar)`` for regression and ``(n_classes, alpha)`` for
    classification.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0]]); y = np.array([0.0, 1.0])
    >>> bool(np.isfinite(_cgm_log_marginal(SoftTree(1), X, y, "regression", (3.0, 1.0, 1 / 3, 0.5))))
    True
    """
    rows = _node_rows(tree, X) if rows is None else rows
    leaves = tree.leaves()
    if task == "regression":
        nu, lam, a, mubar = hyper
        n = y.shape[0]
        b = leaves.shape[0]
        S = 0.0
        lp = -0.5 * n * math.log(math.pi) + 0.5 * nu * math.log(nu * lam) + gammaln(0.5 * (n + nu)) - gammaln(0.5 * nu)
        lp += 0.5 * b * math.log(a)
        for k in leaves:
            yk = y[rows[k]]
            nk = yk.shape[0]
            lp -= 0.5 * math.log(nk + a)
            if nk:
                m = yk.mean()
                S += float(np.sum((yk - m) ** 2)) + nk * a / (nk + a) * (m - mubar) ** 2
        return lp - 0.5 * (n + nu) * math.log(S + nu * lam)
    M, al = hyper
    lp = 0.0
    for k in leaves:
        cnt = np.bincount(y[rows[k]], minlength=M).astype(float)
        lp += gammaln(M * al) - M * gammaln(al) + np.sum(gammaln(cnt + al)) - gammaln(cnt.sum() + M * al)
    return float(lp)


def _valid(tree, X, rows):
    for n in tree.internal_nodes():
        r = rows[n]
        vals = X[r, tree.feature[n]]
        if rows[tree.left[n]].shape[0] == 0 or rows[tree.right[n]].shape[0] == 0:
            return False
        if not np.any(vals == tree.threshold[n]):
            return False
    return True


def _leaf_summary(tree, X, y, task, hyper):
    rows = _node_rows(tree, X)
    t = tree.copy()
    probs = None
    if task == "regression":
        nu, lam, a, mubar = hyper
        for k in t.leaves():
            yk = y[rows[k]]
            t.value[k] = (a * mubar + yk.sum()) / (a + yk.shape[0])
    else:
        M, al = hyper
        probs = np.array([np.bincount(y[rows[k]], minlength=M) + al for k in t.leaves()], dtype=float)
        probs /= probs.sum(axis=1, keepdims=True)
    return t, probs


def cgm_chain(X, y, task, n_classes=None, *, n_iter, n_burnin, seed, prior=None, move_probs=(0.25, 0.25, 0.4, 0.1),
              callback=None, likelihood=True):
    """One CGM Metropolis–Hastings chain; returns its samples and traces as a ``ChainResult`` like :func:`rjhmc_chain`.

    Parameters
    ----------
    X : ndarray (n, p), y : ndarray (n,)
        Inputs (any scale; the estimators pass min–max scaled inputs) and targets
        (floats, or class codes 0..M−1).
    task : {"regression", "classification"}
    n_iter, n_burnin : int
    seed : int or Generator
    prior : CGMPrior or None, default=None
        Tree prior α(1+d)^−β and the leaf priors (regression: ν, λ, a, μ̄, defaults ν = 3,
        λ = var(y), a = 1/3, μ̄ = mean(y); classification: the Dirichlet concentration);
        ``None`` means ``CGMPrior()``.
    move_probs : 4 floats
        Grow, prune, change, swap.
    callback : callable, optional
        Called with the iteration number after every iteration.
    likelihood : bool, default=True
        ``False`` replaces the marginal likelihood by 1, so the chain samples the CGM tree
        prior on these inputs (the split-probability α(1+d)^−β where a node has an
        available split, uniform split rules); used to test the moves' Hastings ratios.

    Examples
    --------
    >>> rng = np.random.default_rng(0); X = rng.random((60, 1)); y = 2.0 * (X[:, 0] > 0.5) + 0.1 * rng.normal(size=60)
    >>> out = cgm_chain(X, y, "regression", n_iter=200, n_burnin=100, seed=0)
    >>> int(np.median(out["n_leaves"][100:])) >= 2
    True
    """
    check_option(task, "task", {"regression", "classification"})
    X = as_float_matrix(X, "X")
    n_iter = check_int(n_iter, "n_iter", min_val=1, max_val=10**7)
    n_burnin = check_int(n_burnin, "n_burnin", min_val=0, max_val=n_iter)
    if not isinstance(seed, np.random.Generator):
        seed = check_int(seed, "seed", min_val=0)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if prior is None:
        prior = CGMPrior()
    if not isinstance(prior, CGMPrior):
        raise TypeError(f"prior must be a CGMPrior or None, got {type(prior).__name__}.")
    alpha, beta = prior.alpha, prior.beta
    if not isinstance(likelihood, (bool, np.bool_)):
        raise TypeError(f"likelihood must be True or False, got {likelihood!r}.")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {callback!r}.")
    p = np.asarray(_check_probs(move_probs, "move_probs", 4, "[grow, prune, change, swap]"))
    if task == "regression":
        y = as_regression_target(y, X.shape[0])
        lam = float(np.var(y)) if prior.lam is None else prior.lam
        if not lam > 0:
            raise ValueError("y is constant, so lam = var(y) = 0; pass a positive CGMPrior(lam=...) or a varying y.")
        mubar = float(np.mean(y)) if prior.mubar is None else prior.mubar
        hyper = (prior.nu, lam, prior.a, mubar)
    else:
        y = as_1d_target(y, X.shape[0])
        if y.dtype.kind not in "iu":
            raise ValueError("y must be integer class codes 0..M-1 for classification; encode labels with "
                             "numpy.unique(y, return_inverse=True).")
        M = int(y.max()) + 1 if n_classes is None else check_int(n_classes, "n_classes", min_val=2)
        if y.min() < 0 or y.max() >= M:
            bound = f"0..{M - 1} (n_classes={M})" if n_classes is not None else "0, 1, 2, ... (non-negative)"
            raise ValueError(
                f"y has class codes from {int(y.min())} to {int(y.max())}, but classification needs integer "
                f"codes in {bound}; encode the labels with classes, y = numpy.unique(y, return_inverse=True) first."
            )
        y = np.ascontiguousarray(y, dtype=np.int64)
        hyper = (M, prior.class_alpha)
    if likelihood:
        marginal = _cgm_log_marginal
    else:
        def marginal(*args):
            return 0.0
    tree = SoftTree(X.shape[1])
    rows = _node_rows(tree, X)
    lpost = marginal(tree, X, y, task, hyper, rows) + _cgm_log_prior(tree, X, alpha, beta, rows)
    tr_leaves = np.zeros(n_iter, dtype=np.int64)
    tr_lp = np.zeros(n_iter)
    tr_move = np.zeros(n_iter, dtype=np.int64)
    tr_acc = np.zeros(n_iter, dtype=bool)
    tr_la = np.full(n_iter, np.nan)
    trees, leaf_probs = [], []
    for it in range(n_iter):
        move = _CGM_MOVES[int(rng.choice(4, p=p))]
        new, log_q = None, 0.0
        if move == "grow":
            leaves = [k for k in tree.leaves() if _available(X, rows[k])]
            if leaves:
                k = int(rng.choice(leaves))
                avail = _available(X, rows[k])
                v = int(rng.choice(sorted(avail)))
                c = float(rng.choice(avail[v]))
                new = tree.grow(k, v, c, None, 0.0)
                log_q = (math.log(p[1] / new.prunable_nodes().shape[0]) - math.log(p[0] / len(leaves))
                         - _log_rule_prob(avail, v, c))
        elif move == "prune":
            cand = tree.prunable_nodes()
            if cand.shape[0]:
                node = int(rng.choice(cand))
                avail = _available(X, rows[node])
                rule = _log_rule_prob(avail, int(tree.feature[node]), tree.threshold[node])
                new, _ = tree.prune(node)
                new_rows = _node_rows(new, X)
                n_grow = sum(1 for k in new.leaves() if _available(X, new_rows[k]))
                log_q = math.log(p[0] / n_grow) + rule - math.log(p[1] / cand.shape[0])
        elif move == "change":
            inner = tree.internal_nodes()
            if inner.shape[0]:
                node = int(rng.choice(inner))
                avail = _available(X, rows[node])
                v = int(rng.choice(sorted(avail)))
                c = float(rng.choice(avail[v]))
                new = tree.copy()
                old_rule = _log_rule_prob(avail, int(tree.feature[node]), tree.threshold[node])
                new.feature[node], new.threshold[node] = v, c
                log_q = old_rule - _log_rule_prob(avail, v, c)
        else:  # swap
            pairs = [(n, c) for n in tree.internal_nodes() for c in (tree.left[n], tree.right[n]) if tree.left[c] >= 0]
            if pairs:
                par, ch = pairs[int(rng.integers(len(pairs)))]
                new = tree.copy()
                l, r = tree.left[par], tree.right[par]
                both = (tree.left[l] >= 0 and tree.left[r] >= 0 and tree.feature[l] == tree.feature[r]
                        and tree.threshold[l] == tree.threshold[r])
                kids = (l, r) if both else (ch,)
                for kid in kids:
                    new.feature[kid], new.threshold[kid] = tree.feature[par], tree.threshold[par]
                new.feature[par], new.threshold[par] = tree.feature[ch], tree.threshold[ch]
        accept = False
        if new is not None:
            new_rows = _node_rows(new, X)
            if _valid(new, X, new_rows):
                lp_new = marginal(new, X, y, task, hyper, new_rows) + _cgm_log_prior(new, X, alpha, beta, new_rows)
                log_alpha = lp_new - lpost + log_q
                tr_la[it] = log_alpha
                if np.isfinite(log_alpha) and math.log(rng.random()) < min(0.0, log_alpha):
                    tree, rows, lpost, accept = new, new_rows, lp_new, True
        tr_leaves[it] = tree.n_leaves
        tr_lp[it] = lpost
        tr_move[it] = MOVE_CODE[move]
        tr_acc[it] = accept
        if it >= n_burnin:
            t, probs = _leaf_summary(tree, X, y, task, hyper)
            trees.append(t)
            if probs is not None:
                leaf_probs.append(probs)
        if callback is not None:
            callback(it)
    return ChainResult(trees=trees, sigmas=np.full(len(trees), np.nan), leaf_probs=leaf_probs, n_leaves=tr_leaves,
                       log_posterior=tr_lp, move=tr_move, accepted=tr_acc, log_alpha=tr_la,
                       divergences=np.zeros(n_iter, dtype=np.int64),
                       divergences_warmup=np.zeros(n_iter, dtype=np.int64), h=np.nan)
