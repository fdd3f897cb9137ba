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
import time
from collections import namedtuple

import numpy as np
from scipy.special import gammaln

from .._validation import as_1d_target, as_float_matrix, as_regression_target, check_generator_seed, check_int, check_option
from ._chain import ChainResult, ChainStep, _check_observer, _class_count
from ._codes import MOVE_CHANGE, MOVE_CODE, MOVE_GROW, MOVE_NAMES, MOVE_PRUNE, MOVE_SWAP
from ._settings import CGMPrior, CGMSettings
from .soft_split_tree import SoftTree

__all__ = ["CGMPosterior", "cgm_chain"]

_CGMState = namedtuple("_CGMState", "tree rows log_posterior")
_CGMState.__doc__ = """A CGM chain's state: the hard tree, the rows reaching each of its nodes and its log-posterior."""

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


class CGMPosterior:
    """Data and prior of the Chipman–George–McCulloch Bayesian CART model, validated once (:func:`cgm_chain`).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Inputs (any scale; the estimators pass min–max scaled inputs).
    y : ndarray of shape (n,)
        Real targets (``task="regression"``) or class codes 0..M−1.
    task : {"regression", "classification"}
    n_classes : int, optional
        Number of classes M (default: ``y.max() + 1``).
    prior : CGMPrior or None, default=None
        Tree prior α(1+d)^−β and the leaf priors (regression: ν, λ, a, μ̄, defaults ν = 3,
        λ = var(y), a = 1/3, μ̄ = mean(y); classification: the Dirichlet concentration);
        ``None`` means ``CGMPrior()``.

    Attributes
    ----------
    hyper : tuple
        ``(nu, lam, a, mubar)`` for regression, ``(n_classes, class_alpha)`` for classification.
    likelihood : bool
        ``False`` for a posterior made by :meth:`without_likelihood`.

    Examples
    --------
    >>> rng = np.random.default_rng(0); X = rng.random((30, 2)); y = rng.normal(size=30)
    >>> post = CGMPosterior(X, y, "regression")
    >>> post.hyper[0], post.likelihood, post.without_likelihood().likelihood
    (3.0, True, False)
    """

    def __init__(self, X, y, task, n_classes=None, prior=None):
        check_option(task, "task", {"regression", "classification"})
        X = as_float_matrix(X, "X")
        if prior is None:
            prior = CGMPrior()
        if not isinstance(prior, CGMPrior):
            raise TypeError(f"prior must be a CGMPrior or None, got {type(prior).__name__}.")
        if task == "regression":
            y = as_regression_target(y, X.shape[0])
            with np.errstate(over="ignore"):
                lam = float(np.var(y)) if prior.lam is None else prior.lam
            if not np.isfinite(lam):
                raise ValueError(f"y's variance overflows (max |y| = {float(np.max(np.abs(y))):.3g}), so lam = var(y) "
                                 "is not finite; rescale y (e.g. standardise it) or pass CGMPrior(lam=...).")
            if not lam > 0:
                raise ValueError("y is constant, so lam = var(y) = 0; pass a positive CGMPrior(lam=...) or a "
                                 "varying y.")
            mubar = float(np.mean(y)) if prior.mubar is None else prior.mubar
            hyper = (prior.nu, lam, prior.a, mubar)
        else:
            y = as_1d_target(y, X.shape[0])
            if y.dtype.kind not in "iu":
                raise ValueError("y must be integer class codes 0..M-1 for classification; encode labels with "
                                 "numpy.unique(y, return_inverse=True).")
            hyper = (_class_count(y, n_classes), prior.class_alpha)
            y = np.ascontiguousarray(y, dtype=np.int64)
        self.X, self.y, self.task, self.prior, self.hyper = X, y, task, prior, hyper
        self.likelihood = True

    def without_likelihood(self):
        """A copy whose likelihood is identically 1, so a chain on it samples the CGM tree prior on these inputs.

        The split probability α(1+d)^−β where a node has an available split and the uniform split
        rules remain; used to test the moves' Hastings ratios.

        Examples
        --------
        >>> post = CGMPosterior(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]), "regression")
        >>> post.without_likelihood().log_marginal(SoftTree(1))
        0.0
        """
        other = CGMPosterior.__new__(CGMPosterior)
        other.__dict__.update(self.__dict__)
        other.likelihood = False
        return other

    def _check_tree(self, tree):
        """``tree`` must be a SoftTree over this posterior's features with split indices in range."""
        if not isinstance(tree, SoftTree):
            raise TypeError(f"tree must be a SoftTree (e.g. SoftTree({self.X.shape[1]})), got {type(tree).__name__}.")
        p = self.X.shape[1]
        if tree.n_features != p:
            raise ValueError(f"tree was built for {tree.n_features} features but this posterior's X has {p}; "
                             f"build it with SoftTree({p}).")
        inner = tree.internal_nodes()
        bad = inner[(tree.feature[inner] < 0) | (tree.feature[inner] >= p)]
        if bad.size:
            raise ValueError(f"tree has split index {int(tree.feature[bad[0]])} at node {int(bad[0])}; split indices "
                             f"must lie in 0..{p - 1}.")
        thresholds = np.asarray(tree.threshold, dtype=float)[inner]
        if not np.all(np.isfinite(thresholds)):
            node = int(inner[~np.isfinite(thresholds)][0])
            raise ValueError(f"tree.threshold holds {tree.threshold[node]} at node {node}: a CGM split sends rows with "
                             f"x <= threshold left, so thresholds must be finite values of the split feature; build the "
                             f"tree with SoftTree.grow, or set a finite tree.threshold[{node}].")

    def log_marginal(self, tree, rows=None):
        """Log marginal likelihood p(Y | X, T) (0 without likelihood); ``rows`` as ``_node_rows`` gives them."""
        if not self.likelihood:
            return 0.0
        return _cgm_log_marginal(tree, self.X, self.y, self.task, self.hyper, rows)

    def log_posterior(self, tree, rows=None):
        """Log marginal likelihood plus the CGM tree prior log p(T) (−inf if a split rule is invalid).

        Examples
        --------
        >>> post = CGMPosterior(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]), "regression")
        >>> bool(np.isfinite(post.log_posterior(SoftTree(1))))
        True
        """
        if rows is None:
            self._check_tree(tree)
            rows = _node_rows(tree, self.X)
        return self.log_marginal(tree, rows) + _cgm_log_prior(tree, self.X, self.prior.alpha, self.prior.beta, rows)


def _propose(tree, rows, X, move, p, rng):
    """One CGM proposal from ``tree``: ``(new tree or None if the move is impossible, log q ratio)``."""
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
    return new, log_q


def cgm_chain(posterior, *, n_iter, n_burnin, seed, sampler=None, observer=None):
    """One CGM Metropolis–Hastings chain; returns its samples and traces as a ``ChainResult`` like :func:`rjhmc_chain`.

    Parameters
    ----------
    posterior : CGMPosterior
        Data and prior (``CGMPosterior(X, y, task, n_classes, prior)``; its
        :meth:`~CGMPosterior.without_likelihood` samples the tree prior).
    n_iter, n_burnin : int
    seed : int, Generator, SeedSequence, RandomState or None
        An int in [0, 2**32 - 1] seeds ``numpy.random.default_rng``; a Generator is used as it is.
    sampler : CGMSettings or None, default=None
        The move probabilities (grow, prune, change, swap); ``None`` means ``CGMSettings()``.
    observer : callable, optional
        Called after every iteration with a :class:`ChainStep` (``nuts`` is empty).

    Examples
    --------
    >>> rng = np.random.default_rng(0); X = rng.random((60, 1)); y = 2.0 * (X[:, 0] > 0.5) + 0.1 * rng.normal(size=60)
    >>> out = cgm_chain(CGMPosterior(X, y, "regression"), n_iter=200, n_burnin=100, seed=0)
    >>> int(np.median(out.n_leaves[100:])) >= 2
    True
    """
    if not isinstance(posterior, CGMPosterior):
        raise TypeError(f"posterior must be a CGMPosterior (CGMPosterior(X, y, task)), got {type(posterior).__name__}.")
    n_iter = check_int(n_iter, "n_iter", min_val=1, max_val=10**7)
    n_burnin = check_int(n_burnin, "n_burnin", min_val=0, max_val=n_iter)
    rng = check_generator_seed(seed, "seed")
    if sampler is None:
        sampler = CGMSettings()
    if not isinstance(sampler, CGMSettings):
        raise TypeError(f"sampler must be a CGMSettings or None, got {type(sampler).__name__}; "
                        "e.g. sampler=CGMSettings(move_probs=(0.25, 0.25, 0.4, 0.1)).")
    observer = _check_observer(observer)
    p = np.asarray(sampler.move_probs)
    X = posterior.X
    tree = SoftTree(X.shape[1])
    rows = _node_rows(tree, X)
    state = _CGMState(tree, rows, posterior.log_posterior(tree, rows))
    tr_leaves = np.zeros(n_iter, dtype=np.int64)
    tr_lp = np.zeros(n_iter)
    tr_move = np.zeros(n_iter, dtype=np.int64)
    tr_acc = np.zeros(n_iter, dtype=bool)
    tr_la = np.full(n_iter, np.nan)
    trees, leaf_probs = [], []
    for it in range(n_iter):
        t_start = time.perf_counter()
        move = _CGM_MOVES[int(rng.choice(4, p=p))]
        new, log_q = _propose(state.tree, state.rows, X, move, p, rng)
        current_leaves = state.tree.n_leaves
        accept = False
        if new is not None:
            new_rows = _node_rows(new, X)
            if _valid(new, X, new_rows):
                lp_new = posterior.log_posterior(new, new_rows)
                log_alpha = lp_new - state.log_posterior + log_q
                tr_la[it] = log_alpha
                if np.isfinite(log_alpha) and math.log(rng.random()) < min(0.0, log_alpha):
                    state, accept = _CGMState(new, new_rows, lp_new), True
        tr_leaves[it] = state.tree.n_leaves
        tr_lp[it] = state.log_posterior
        tr_move[it] = MOVE_CODE[move]
        tr_acc[it] = accept
        if it >= n_burnin:
            t, probs = _leaf_summary(state.tree, X, posterior.y, posterior.task, posterior.hyper)
            trees.append(t)
            if probs is not None:
                leaf_probs.append(probs)
        if observer is not None:
            observer(ChainStep(iteration=it, burn_in=it < n_burnin, move=move, current_leaves=current_leaves,
                               proposed_leaves=None if new is None else new.n_leaves, accepted=accept,
                               log_alpha=float(tr_la[it]), nuts=(), seconds=time.perf_counter() - t_start))
    return ChainResult(trees=trees, sigmas=np.full(len(trees), np.nan), leaf_probs=leaf_probs, n_leaves=tr_leaves,
                       log_posterior=tr_lp, move=tr_move, accepted=tr_acc, log_alpha=tr_la,
                       divergences=np.zeros(n_iter, dtype=np.int64),
                       divergences_warmup=np.zeros(n_iter, dtype=np.int64), h=np.nan)
