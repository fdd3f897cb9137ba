"""scikit-learn estimators for Bayesian decision trees (RJHMC-Tree and CGM)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import (as_class_target, as_float_matrix, as_regression_target, check_int, check_option,
                           check_real)
from .cgm import cgm_chain
from .posterior import TreePosterior
from .rjhmc import rjhmc_chain
from .soft_tree import _hard_route, _node_probabilities

__all__ = ["BayesianTreeRegressor", "BayesianTreeClassifier"]

_METHODS = ("hmc-df", "hmc-dfi", "cgm")
_DEFAULT_H = {"hmc-df": (0.001, 0.001), "hmc-dfi": (0.01, 0.001)}  # Table 4, CGM data


def _import_tqdm():
    try:
        from tqdm.auto import tqdm  # optional (book) dependency, imported lazily
    except ImportError:
        raise ImportError("progress=True needs the optional package tqdm (pip install tqdm); "
                          "or pass progress=False.") from None
    return tqdm


def _as_X(X):
    try:
        return as_float_matrix(X, "X")
    except ValueError as exc:
        if "1-D" in str(exc):
            raise ValueError(f"Reshape your data: {exc}") from None
        raise


def _column_or_1d(y):
    """Ravel a column vector with sklearn's DataConversionWarning; leave other shapes to validation."""
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    shape = getattr(y, "shape", None)
    if shape is None:
        shape = np.asarray(y).shape
    if len(shape) == 2 and shape[1] == 1:
        return column_or_1d(y, warn=True)
    return y


def _check_probs(p, name):
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (3,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p[0] <= 0 or p[1] <= 0:
        raise ValueError(f"{name} must be three non-negative probabilities [grow, prune, stay] with grow, prune > 0, got {p!r}.")
    if abs(p.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must sum to 1, got {p.sum()}.")
    return tuple(float(v) for v in p)


def _chain_seeds(random_state, n_chains):
    if isinstance(random_state, np.random.SeedSequence):
        # a copy, so that fitting twice gives the same chains (spawn advances the counter)
        ss = np.random.SeedSequence(random_state.entropy, spawn_key=random_state.spawn_key,
                                    pool_size=random_state.pool_size,
                                    n_children_spawned=random_state.n_children_spawned)
        return [np.random.default_rng(s) for s in ss.spawn(n_chains)]
    if isinstance(random_state, np.random.RandomState):
        entropy = int(random_state.randint(0, 2**31 - 1))
    elif random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        entropy = None if random_state is None else int(random_state)
    else:
        raise TypeError("random_state must be None, an int, a RandomState or a SeedSequence, got "
                        f"{type(random_state).__name__}.")
    ss = np.random.SeedSequence(entropy)
    return [np.random.default_rng(s) for s in ss.spawn(n_chains)]


def _run_chain(kind, args, kwargs):
    if kind == "cgm":
        return cgm_chain(*args, **kwargs)
    return rjhmc_chain(*args, **kwargs)


class _BayesianTreeBase(BaseEstimator):
    _task = None

    def __init__(self, method="hmc-df", n_iter=1000, n_burnin=500, random_state=None, *, n_chains=1, n_jobs=None,
                 k_warmup=500, h_init=None, h_final=None, alpha=0.45, beta=2.5,
                 warmup_probs=(0.5, 0.25, 0.25), sampling_probs=(0.2, 0.2, 0.6), max_tree_depth=10,
                 mu_loc=0.0, mu_scale=1.0, sigma_a=1.5, sigma_b=1.5, progress=False):
        self.method = method
        self.n_iter = n_iter
        self.n_burnin = n_burnin
        self.random_state = random_state
        self.n_chains = n_chains
        self.n_jobs = n_jobs
        self.k_warmup = k_warmup
        self.h_init = h_init
        self.h_final = h_final
        self.alpha = alpha
        self.beta = beta
        self.warmup_probs = warmup_probs
        self.sampling_probs = sampling_probs
        self.max_tree_depth = max_tree_depth
        self.mu_loc = mu_loc
        self.mu_scale = mu_scale
        self.sigma_a = sigma_a
        self.sigma_b = sigma_b
        self.progress = progress

    # ------------------------------------------------------------------ fitting
    def _validate_params_(self):
        check_option(self.method, "method", set(_METHODS))
        n_iter = check_int(self.n_iter, "n_iter", min_val=1)
        n_burnin = check_int(self.n_burnin, "n_burnin", min_val=0)
        if n_burnin >= n_iter:
            raise ValueError(f"n_burnin ({n_burnin}) must be smaller than n_iter ({n_iter}); "
                             "n_iter counts all iterations including burn-in.")
        check_int(self.n_chains, "n_chains", min_val=1)
        check_int(self.k_warmup, "k_warmup", min_val=0)
        check_int(self.max_tree_depth, "max_tree_depth", min_val=1, max_val=30)
        a = check_real(self.alpha, "alpha", min_val=0.0, max_val=1.0, include_boundaries="neither")
        b = check_real(self.beta, "beta", min_val=0.0)
        h0, h1 = _DEFAULT_H.get(self.method, (0.01, 0.01))
        h0 = h0 if self.h_init is None else check_real(self.h_init, "h_init", min_val=0.0, include_boundaries="neither")
        h1 = h1 if self.h_final is None else check_real(self.h_final, "h_final", min_val=0.0, include_boundaries="neither")
        check_real(self.mu_loc, "mu_loc")
        check_real(self.mu_scale, "mu_scale", min_val=0.0, include_boundaries="neither")
        check_real(self.sigma_a, "sigma_a", min_val=0.0, include_boundaries="neither")
        check_real(self.sigma_b, "sigma_b", min_val=0.0, include_boundaries="neither")
        if not isinstance(self.progress, (bool, np.bool_)):
            raise TypeError(f"progress must be True or False, got {self.progress!r}.")
        wp = _check_probs(self.warmup_probs, "warmup_probs")
        sp = _check_probs(self.sampling_probs, "sampling_probs")
        return n_iter, n_burnin, a, b, h0, h1, wp, sp

    def _fit(self, X, y_codes, n_classes):
        n_iter, n_burnin, a, b, h0, h1, wp, sp = self._validate_params_()
        self.x_min_ = X.min(axis=0)
        rng_ = X.max(axis=0) - self.x_min_
        self.x_range_ = np.where(rng_ > 0, rng_, 1.0)
        Xs = (X - self.x_min_) / self.x_range_
        rngs = _chain_seeds(self.random_state, self.n_chains)
        if self.method == "cgm":
            kind = "cgm"
            common = dict(n_iter=n_iter, n_burnin=n_burnin, alpha=a, beta=b)
            jobs = [(Xs, y_codes, self._task, n_classes) for _ in rngs]
        else:
            kind = "rjhmc"
            post = TreePosterior(Xs, y_codes, self._task, use_simplex=self.method == "hmc-dfi", n_classes=n_classes,
                                 mu_loc=float(self.mu_loc), mu_scale=float(self.mu_scale), sigma_a=float(self.sigma_a),
                                 sigma_b=float(self.sigma_b), alpha=a, beta=b)
            common = dict(n_iter=n_iter, n_burnin=n_burnin, k_warmup=self.k_warmup, h_init=h0, h_final=h1,
                          warmup_probs=wp, sampling_probs=sp, max_tree_depth=self.max_tree_depth)
            jobs = [(post,) for _ in rngs]
        sequential = self.n_chains == 1 or self.n_jobs in (None, 1)
        if sequential:
            chains = []
            bar = None
            if self.progress:
                tqdm = _import_tqdm()
                bar = tqdm(total=n_iter * len(rngs), desc=f"{self.method} chains", leave=False)
            for args, r in zip(jobs, rngs):
                cb = (lambda _it: bar.update(1)) if bar is not None else None
                chains.append(_run_chain(kind, args, dict(common, seed=r, callback=cb)))
            if bar is not None:
                bar.close()
        else:
            from joblib import Parallel, delayed
            it = Parallel(n_jobs=self.n_jobs, backend="loky", return_as="generator")(
                delayed(_run_chain)(kind, args, dict(common, seed=r)) for args, r in zip(jobs, rngs))
            if self.progress:
                tqdm = _import_tqdm()
                it = tqdm(it, total=len(rngs), desc=f"{self.method} chains", leave=False)
            chains = list(it)
        self.h_ = chains[0]["h"]
        self.chains_ = chains
        self.trees_ = [t for c in chains for t in c["trees"]]
        self.n_leaves_ = np.array([c["n_leaves"] for c in chains])
        self.log_posterior_ = np.array([c["log_posterior"] for c in chains])
        self.moves_ = np.array([c["move"] for c in chains])
        self.accepted_ = np.array([c["accepted"] for c in chains])
        self.divergences_ = np.array([c["divergences"] for c in chains])
        acc = {}
        for k, name in enumerate(("grow", "prune", "stay", "change", "swap")):
            mask = self.moves_ == k
            if mask.any():
                acc[name] = float(self.accepted_[mask].mean())
        acc["all"] = float(self.accepted_.mean())
        self.acceptance_ = acc
        self.n_features_in_ = X.shape[1]
        return chains

    def _scaled(self, X):
        check_is_fitted(self, "trees_")
        X = _as_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        return np.ascontiguousarray((X - self.x_min_) / self.x_range_)

    def _leaf_weights(self, tree, Xs):
        """(n, n_nodes) probabilities of reaching each node (one-hot for hard CGM trees)."""
        n = Xs.shape[0]
        if self.method == "cgm":
            out = np.zeros(n, dtype=np.int64)
            _hard_route(Xs, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex, tree.use_simplex, out)
            W = np.zeros((n, tree.n_nodes))
            W[np.arange(n), out] = 1.0
            return W
        phi = np.zeros((n, tree.n_nodes))
        psi = np.zeros_like(phi)
        _node_probabilities(Xs, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex, tree.use_simplex,
                            float(self.h_), phi, psi)
        return phi



class BayesianTreeRegressor(RegressorMixin, _BayesianTreeBase):
    """Bayesian regression tree sampled by RJHMC-Tree (HMC-DF / HMC-DFI) or CGM.

    Parameters
    ----------
    method : {"hmc-df", "hmc-dfi", "cgm"}, default="hmc-df"
        Soft decision function with Gibbs-sampled split indices, soft index
        (simplex) splits, or Chipman–George–McCulloch random-walk MH on hard trees.
    n_iter : int, default=1000
        Iterations per chain, burn-in included.
    n_burnin : int, default=500
        Burn-in iterations (warm-up move probabilities and the biased rule, Eq. 19);
        only later samples are kept.
    random_state : int, RandomState, SeedSequence or None
        Seeds the chains through ``numpy.random.SeedSequence`` (one child per chain).
        Chain ``i`` of ``random_state=s`` is chain ``i - a`` of
        ``random_state=SeedSequence(s, n_children_spawned=a)``, so a long run can be
        split into batches of chains.
    n_chains : int, default=1
    n_jobs : int or None
        Chains run in parallel with joblib (loky) when ``n_jobs != 1``.
    k_warmup : int, default=500
        NUTS warm-up steps on each side of every jump (the paper's setting).
    h_init, h_final : float or None
        Split softness schedule; ``None`` uses Table 4's CGM values (HMC-DF 0.001 → 0.001,
        HMC-DFI 0.01 → 0.001).
    alpha, beta : float
        Tree prior p_split(d) = α(1+d)^−β, ``0 < alpha < 1``.
    warmup_probs, sampling_probs : sequence of 3 floats
        ``[p_grow, p_prune, p_stay]`` in burn-in and sampling.
    max_tree_depth : int, default=10
        NUTS tree-depth limit.
    mu_loc, mu_scale, sigma_a, sigma_b : float
        Priors μ_k ~ N(mu_loc, mu_scale²) and σ ~ InverseGamma(sigma_a, sigma_b) (paper: 0, 1, 1.5, 1.5).
        They are on the scale of y; standardise y or widen ``mu_scale`` for targets far from N(0, 1).
        Unused by ``method="cgm"`` (which uses its conjugate data-scaled prior).
    progress : bool, default=False
        Show a tqdm progress bar (tqdm must be installed).

    Attributes
    ----------
    trees_ : list of SoftTree
        Posterior samples (all chains), on the min–max scaled inputs.
    sigmas_ : ndarray
        Noise standard deviation per kept sample (HMC methods).
    n_leaves_, log_posterior_, accepted_, moves_, divergences_ : ndarray (n_chains, n_iter)
        Traces.
    acceptance_ : dict
        Acceptance rate per move type and overall.

    Examples
    --------
    >>> from tabular_trees.datasets import make_cgm
    >>> Xtr, ytr, Xte, yte = make_cgm(n_train=100, n_test=50, random_state=0)
    >>> reg = BayesianTreeRegressor(n_iter=6, n_burnin=3, k_warmup=30, h_init=0.05, h_final=0.05, random_state=0)
    >>> reg.fit(Xtr, ytr).predict(Xte).shape
    (50,)
    """

    _task = "regression"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # short chains in the generic checks
        return tags

    def fit(self, X, y):
        """Run the chains on ``(X, y)``."""
        X = _as_X(X)
        y = _column_or_1d(y)
        y_arr = np.asarray(y) if y is not None else None
        if y_arr is not None and y_arr.dtype == object:
            try:
                y = y_arr.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError("Unknown label type: y must be numeric for regression.") from None
        y = as_regression_target(y, X.shape[0])
        if y.shape[0] < 2:
            raise ValueError("Got n_samples=1; a Bayesian tree needs at least 2 samples.")
        if np.ptp(y) == 0:
            raise ValueError("y is constant; a Bayesian regression tree needs a varying target.")
        chains = self._fit(X, y, None)
        self.sigmas_ = np.concatenate([c["sigmas"] for c in chains])
        return self

    def predict(self, X):
        """Posterior predictive mean: the average of the sampled trees' outputs."""
        Xs = self._scaled(X)
        out = np.zeros(Xs.shape[0])
        for t in self.trees_:
            W = self._leaf_weights(t, Xs)
            out += W @ np.where(t.left < 0, t.value, 0.0)
        return out / len(self.trees_)


class BayesianTreeClassifier(ClassifierMixin, _BayesianTreeBase):
    """Bayesian classification tree (Dirichlet–multinomial leaves) sampled by RJHMC-Tree or CGM.

    Parameters are those of :class:`BayesianTreeRegressor`.

    Attributes
    ----------
    classes_ : ndarray
    trees_, leaf_probs_ : posterior samples and their leaf class probabilities.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = BayesianTreeClassifier(n_iter=6, n_burnin=3, k_warmup=30, h_init=0.05, h_final=0.05, random_state=0)
    >>> clf.fit(X, y).predict_proba(X[:2]).shape
    (2, 3)
    """

    _task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # short chains in the generic checks
        return tags

    def fit(self, X, y):
        """Run the chains on ``(X, y)``."""
        X = _as_X(X)
        self.classes_, codes = as_class_target(_column_or_1d(y), X.shape[0])
        chains = self._fit(X, codes, self.classes_.shape[0])
        self.leaf_probs_ = [lp for c in chains for lp in c["leaf_probs"]]
        return self

    def predict_proba(self, X):
        """Posterior predictive class probabilities averaged over the sampled trees."""
        check_is_fitted(self, "trees_")
        Xs = self._scaled(X)
        out = np.zeros((Xs.shape[0], self.classes_.shape[0]))
        for t, P in zip(self.trees_, self.leaf_probs_):
            W = self._leaf_weights(t, Xs)[:, t.leaves()]
            out += W @ P
        out /= len(self.trees_)
        return out / out.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Most probable class under the posterior predictive."""
        check_is_fitted(self, "trees_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
