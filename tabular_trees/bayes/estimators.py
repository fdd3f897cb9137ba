"""scikit-learn estimators for Bayesian decision trees (RJHMC-Tree and CGM)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._validation import as_class_target, as_regression_target, check_int, check_option, check_real
from .cgm import cgm_chain
from .posterior import TreePosterior
from .rjhmc import rjhmc_chain
from .soft_tree import tree_leaf_weights

__all__ = ["BayesianTreeRegressor", "BayesianTreeClassifier"]

_METHODS = ("hmc-df", "hmc-dfi", "cgm")
_Y_GRID = 2.0**20
_DEFAULT_H = {"hmc-df": (0.001, 0.001), "hmc-dfi": (0.01, 0.001)}  # Table 4, CGM data


def _import_tqdm():
    try:
        from tqdm.auto import tqdm  # optional (book) dependency, imported lazily
    except ImportError:
        raise ImportError("progress=True needs the optional package tqdm (pip install tqdm); "
                          "or pass progress=False.") from None
    return tqdm


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
                 mu_loc=0.0, mu_scale=1.0, sigma_a=1.5, sigma_b=1.5, progress=False, prune_start="paper"):
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
        self.prune_start = prune_start

    # ------------------------------------------------------------------ fitting
    def _validate_params_(self):
        check_option(self.method, "method", set(_METHODS))
        n_iter = check_int(self.n_iter, "n_iter", min_val=1, max_val=10**7)
        n_burnin = check_int(self.n_burnin, "n_burnin", min_val=0)
        if n_burnin >= n_iter:
            raise ValueError(f"n_burnin ({n_burnin}) must be smaller than n_iter ({n_iter}); "
                             "n_iter counts all iterations including burn-in.")
        check_int(self.n_chains, "n_chains", min_val=1, max_val=10**4)
        check_int(self.k_warmup, "k_warmup", min_val=0, max_val=10**6)
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
        check_option(self.prune_start, "prune_start", {"paper", "reference"})
        if not isinstance(self.progress, (bool, np.bool_)):
            raise TypeError(f"progress must be True or False, got {self.progress!r}.")
        wp = _check_probs(self.warmup_probs, "warmup_probs")
        sp = _check_probs(self.sampling_probs, "sampling_probs")
        return n_iter, n_burnin, a, b, h0, h1, wp, sp

    def _validate_X(self, X, reset):
        """X through scikit-learn's ``validate_data`` (feature names and counts, finite floats)."""
        return validate_data(self, X, reset=reset, dtype=np.float64, order="C", ensure_min_samples=1)

    def _fit(self, X, y_codes, n_classes):
        n_iter, n_burnin, a, b, h0, h1, wp, sp = self._validate_params_()
        self.x_min_ = X.min(axis=0)
        with np.errstate(over="ignore"):
            rng_ = X.max(axis=0) - self.x_min_
        if not np.all(np.isfinite(rng_)):
            raise ValueError("X has a column whose range overflows (values near ±1e308); rescale X first.")
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
                          warmup_probs=wp, sampling_probs=sp, max_tree_depth=self.max_tree_depth,
                          prune_start=self.prune_start)
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
        return chains

    def _scaled(self, X):
        check_is_fitted(self, "trees_")
        X = self._validate_X(X, reset=False)
        return np.ascontiguousarray((X - self.x_min_) / self.x_range_)

    def _sample_index(self, sample):
        n = len(self.trees_)
        if isinstance(sample, bool) or not isinstance(sample, (numbers.Integral, np.integer)):
            raise TypeError(f"sample must be an int in 0..{n - 1} (an index into trees_), got {sample!r}.")
        if not -n <= int(sample) < n:
            raise ValueError(f"sample must lie in 0..{n - 1} (there are {n} kept posterior samples), got {sample}.")
        return int(sample) % n

    def _routing(self, tree, Xs):
        """(n_samples, n_leaves) routing weights of one kept tree on scaled inputs."""
        return tree_leaf_weights(tree, Xs, None if self.method == "cgm" else self.h_)

    def leaf_weights(self, X, sample):
        """Probability that each row reaches each leaf of one posterior sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs on their original scale.
        sample : int
            Index of the kept posterior sample (into ``trees_``; chains are concatenated).

        Returns
        -------
        W : ndarray of shape (n_samples, n_leaves)
            Columns follow the tree's leaves in node order; rows sum to one. Soft trees
            (``method="hmc-df"`` / ``"hmc-dfi"``) give the soft-routing probabilities at the
            final softness ``h_``; hard CGM trees give one-hot rows.
        """
        Xs = self._scaled(X)
        return self._routing(self.trees_[self._sample_index(sample)], Xs)

    def apply(self, X, sample):
        """Leaf reached by each row in one posterior sample (the most probable leaf for soft trees).

        Returns
        -------
        leaf_ids : ndarray of shape (n_samples,)
            Node ids of the leaves (as in the tree's arrays).
        """
        W = self.leaf_weights(X, sample)
        tree = self.trees_[self._sample_index(sample)]
        return tree.leaves()[np.argmax(W, axis=1)]



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
        They act on the scale the chains see: the standardised target when ``standardize_y=True``
        (the default), the raw target otherwise. Unused by ``method="cgm"`` (its conjugate prior
        is scaled by the data, so CGM's posterior over trees does not depend on the units of y).
    progress : bool, default=False
        Show a tqdm progress bar (tqdm must be installed).
    prune_start : {"paper", "reference"}, default="paper"
        Where the NUTS run after a prune starts (HMC methods): the paper's rule, or the authors'
        code's positional copy (see ``rjhmc_chain``). Ignored by ``method="cgm"``.
    standardize_y : bool, default=True
        Fit the chains to ``(y - mean(y)) / std(y)`` and map predictions back, so that the
        paper's priors (μ ~ N(0, 1), σ ~ InverseGamma(1.5, 1.5)) are sensible for a target in
        any units, and predictions are equivariant under shifting and rescaling y (up to
        floating-point rounding; the standardised target is rounded to multiples of 2^-20, about
        1e-6 of its standard deviation, so that the chains themselves are identical).
        ``False`` runs on the raw target, as the RJHMC-Tree paper and
        the authors' code do on the CGM data (their y lies in 1..8 with noise σ = 0.2); the
        reproduction of Table 1 (``benchmarks/reproduce_rjhmc.py``) and chapter 7 use ``False``.

    Attributes
    ----------
    trees_ : list of SoftTree
        Posterior samples (all chains), on the min–max scaled inputs. Their leaf values are on
        the scale the chains saw (standardised y when ``standardize_y=True``); use
        :meth:`sample_predictions` for predictions in the units of y.
    sigmas_ : ndarray
        Noise standard deviation per kept sample (HMC methods), in the units of y.
    y_mean_, y_scale_ : float
        The shift and scale applied to y (0 and 1 when ``standardize_y=False``).
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

    def __init__(self, method="hmc-df", n_iter=1000, n_burnin=500, random_state=None, *, n_chains=1, n_jobs=None,
                 k_warmup=500, h_init=None, h_final=None, alpha=0.45, beta=2.5,
                 warmup_probs=(0.5, 0.25, 0.25), sampling_probs=(0.2, 0.2, 0.6), max_tree_depth=10,
                 mu_loc=0.0, mu_scale=1.0, sigma_a=1.5, sigma_b=1.5, progress=False, prune_start="paper",
                 standardize_y=True):
        super().__init__(method=method, n_iter=n_iter, n_burnin=n_burnin, random_state=random_state,
                         n_chains=n_chains, n_jobs=n_jobs, k_warmup=k_warmup, h_init=h_init, h_final=h_final,
                         alpha=alpha, beta=beta, warmup_probs=warmup_probs, sampling_probs=sampling_probs,
                         max_tree_depth=max_tree_depth, mu_loc=mu_loc, mu_scale=mu_scale, sigma_a=sigma_a,
                         sigma_b=sigma_b, progress=progress, prune_start=prune_start)
        self.standardize_y = standardize_y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # short chains in the generic checks
        return tags

    def fit(self, X, y):
        """Run the chains on ``(X, y)``."""
        if not isinstance(self.standardize_y, (bool, np.bool_)):
            raise TypeError(f"standardize_y must be True or False, got {self.standardize_y!r}.")
        X = self._validate_X(X, reset=True)
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
        if self.standardize_y:
            self.y_mean_ = float(np.mean(y))
            self.y_scale_ = float(np.std(y))
            if not (np.isfinite(self.y_scale_) and self.y_scale_ > 0):
                raise ValueError("y cannot be standardised (its standard deviation is 0 or overflows); "
                                 "rescale y or pass standardize_y=False.")
            # snapped to a grid of 2^-20 standard deviations (1e-6, far below any noise level): targets that
            # differ by an affine map then give bit-identical chains (NUTS trajectories would otherwise amplify
            # a rounding difference of 1e-16), except when a value lies within rounding of a grid point
            ys = np.round((y - self.y_mean_) / self.y_scale_ * _Y_GRID) / _Y_GRID
        else:
            self.y_mean_, self.y_scale_, ys = 0.0, 1.0, y
        chains = self._fit(X, ys, None)
        self.sigmas_ = np.concatenate([c["sigmas"] for c in chains]) * self.y_scale_
        return self

    def _tree_outputs(self, Xs, sample):
        t = self.trees_[sample]
        return self._routing(t, Xs) @ t.value[t.leaves()]

    def sample_predictions(self, X, sample=None):
        """Predictions of posterior samples, in the units of y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        sample : int or None, default=None
            Index of one kept sample (into ``trees_``), or ``None`` for all of them.

        Returns
        -------
        ndarray of shape (n_samples,) for one sample, (n_kept, n_samples) for all.
        """
        Xs = self._scaled(X)
        if sample is not None:
            out = self._tree_outputs(Xs, self._sample_index(sample))
        else:
            out = np.array([self._tree_outputs(Xs, i) for i in range(len(self.trees_))])
        return out * self.y_scale_ + self.y_mean_

    def predict(self, X):
        """Posterior predictive mean: the average of the sampled trees' outputs."""
        Xs = self._scaled(X)
        out = np.zeros(Xs.shape[0])
        for i in range(len(self.trees_)):
            out += self._tree_outputs(Xs, i)
        return out / len(self.trees_) * self.y_scale_ + self.y_mean_


class BayesianTreeClassifier(ClassifierMixin, _BayesianTreeBase):
    """Bayesian classification tree (Dirichlet–multinomial leaves) sampled by RJHMC-Tree or CGM.

    Parameters are those of :class:`BayesianTreeRegressor` except ``standardize_y``.

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
        X = self._validate_X(X, reset=True)
        self.classes_, codes = as_class_target(_column_or_1d(y), X.shape[0])
        chains = self._fit(X, codes, self.classes_.shape[0])
        self.leaf_probs_ = [lp for c in chains for lp in c["leaf_probs"]]
        return self

    def sample_predict_proba(self, X, sample=None):
        """Class probabilities of posterior samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        sample : int or None, default=None
            Index of one kept sample (into ``trees_``), or ``None`` for all of them.

        Returns
        -------
        ndarray of shape (n_samples, n_classes) for one sample, (n_kept, n_samples, n_classes) for all.
        """
        Xs = self._scaled(X)
        if sample is not None:
            i = self._sample_index(sample)
            return self._routing(self.trees_[i], Xs) @ self.leaf_probs_[i]
        return np.array([self._routing(t, Xs) @ P for t, P in zip(self.trees_, self.leaf_probs_)])

    def predict_proba(self, X):
        """Posterior predictive class probabilities averaged over the sampled trees."""
        check_is_fitted(self, "trees_")
        Xs = self._scaled(X)
        out = np.zeros((Xs.shape[0], self.classes_.shape[0]))
        for t, P in zip(self.trees_, self.leaf_probs_):
            out += self._routing(t, Xs) @ P
        out /= len(self.trees_)
        return out / out.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Most probable class under the posterior predictive."""
        check_is_fitted(self, "trees_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
