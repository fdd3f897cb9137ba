"""scikit-learn estimators for Bayesian decision trees (RJHMC-Tree and CGM)."""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import (Boolean, Instance, Integer, Options, RandomState, as_class_target, as_regression_target,
                           check_params, require_y, validate_X)
from ._chain import _check_observer
from ._codes import MOVE_NAMES
from ._settings import CGMPrior, CGMSettings, RJHMCSettings, TreePrior
from .cgm import CGMPosterior, cgm_chain
from .posterior import TreePosterior
from .rjhmc import rjhmc_chain
from .soft_split_tree import tree_leaf_weights

__all__ = ["BayesianTreeRegressor", "BayesianTreeClassifier"]

_Method = namedtuple("_Method", "posterior chain settings soft")
# One row per method decides everything about it: the model the chains sample, the chain function, the sampler
# settings it takes (and the default: settings()), and whether its trees route softly (at the chain's h).
_METHOD_TABLE = {
    "hmc-df": _Method(TreePosterior, rjhmc_chain, RJHMCSettings, soft=True),
    "hmc-dfi": _Method(TreePosterior, rjhmc_chain, RJHMCSettings, soft=True),
    "cgm": _Method(CGMPosterior, cgm_chain, CGMSettings, soft=False),
}
_METHODS = tuple(_METHOD_TABLE)
_Y_GRID = 2.0**20


def _import_tqdm():
    try:
        from tqdm.auto import tqdm  # optional (book) dependency, imported lazily
    except ImportError:
        raise ImportError("progress=True needs the optional package tqdm (pip install tqdm); "
                          "or pass progress=False.") from None
    return tqdm


def _column_or_1d(estimator, y):
    """Ravel a column vector with sklearn's DataConversionWarning; leave other shapes to validation."""
    shape = getattr(require_y(estimator, y), "shape", None)
    if shape is None:
        shape = np.asarray(y).shape
    if len(shape) == 2 and shape[1] == 1:
        return column_or_1d(y, warn=True)
    return y


def _chain_seeds(random_state, n_chains):
    if isinstance(random_state, np.random.SeedSequence):
        # a copy, so that fitting twice gives the same chains (spawn advances the counter)
        ss = np.random.SeedSequence(random_state.entropy, spawn_key=random_state.spawn_key,
                                    pool_size=random_state.pool_size,
                                    n_children_spawned=random_state.n_children_spawned)
        return [np.random.default_rng(s) for s in ss.spawn(n_chains)]
    if isinstance(random_state, np.random.RandomState):
        entropy = int(random_state.randint(0, 2**31 - 1))
    else:
        entropy = None if random_state is None else int(random_state)
    ss = np.random.SeedSequence(entropy)
    return [np.random.default_rng(s) for s in ss.spawn(n_chains)]


def _method_sampler(method, sampler):
    """The sampler settings of ``method``: ``sampler`` if it belongs to the method, its defaults for None."""
    kind = _METHOD_TABLE[method].settings
    if sampler is None:
        return kind()
    if not isinstance(sampler, kind):
        raise TypeError(f"sampler is a {type(sampler).__name__}, which does not belong to method={method!r}: "
                        f"pass a {kind.__name__} (e.g. sampler={kind.__name__}()) or sampler=None for its defaults"
                        + (", or choose method='hmc-df' or 'hmc-dfi'." if kind is CGMSettings
                           else ", or choose method='cgm'."))
    return sampler


def _run_chain(chain, posterior, kwargs):
    return chain(posterior, **kwargs)


class _BayesianTreeBase(BaseEstimator):
    _task = None
    _parameter_table = {
        "method": Options(*_METHODS),
        "n_iter": Integer(1, 10**7),
        "n_burnin": Integer(0),
        "random_state": RandomState(allow_seed_sequence=True),
        "n_chains": Integer(1, 10**4),
        "n_jobs": Integer(allow_none=True),
        "prior": Instance(TreePrior, example="TreePrior(alpha=0.45, beta=2.5)"),
        "sampler": Instance(RJHMCSettings, CGMSettings, example="RJHMCSettings(k_warmup=100)"),
        "progress": Boolean(),
    }

    def __init__(self, method="hmc-df", n_iter=1000, n_burnin=500, random_state=None, *, n_chains=1, n_jobs=None,
                 prior=None, sampler=None, progress=False):
        self.method = method
        self.n_iter = n_iter
        self.n_burnin = n_burnin
        self.random_state = random_state
        self.n_chains = n_chains
        self.n_jobs = n_jobs
        self.prior = prior
        self.sampler = sampler
        self.progress = progress

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        """The hyperparameters through the one table (``check_params``), then what ties them together."""
        params = check_params(self)
        n_iter, n_burnin = params["n_iter"], params["n_burnin"]
        if n_burnin >= n_iter:
            raise ValueError(f"n_burnin ({n_burnin}) must be smaller than n_iter ({n_iter}); "
                             "n_iter counts all iterations including burn-in.")
        prior = TreePrior() if self.prior is None else self.prior
        return n_iter, n_burnin, prior, _method_sampler(self.method, self.sampler)

    def _posterior(self, Xs, y_codes, n_classes, prior):
        """The model the chains sample: a CGMPosterior for ``method="cgm"``, a TreePosterior otherwise."""
        if _METHOD_TABLE[self.method].posterior is CGMPosterior:
            # CGM's conjugate leaf prior is scaled by the data; only the tree prior's alpha, beta carry over
            return CGMPosterior(Xs, y_codes, self._task, n_classes, prior=CGMPrior(alpha=prior.alpha, beta=prior.beta))
        return TreePosterior(Xs, y_codes, self._task, use_simplex=self.method == "hmc-dfi", n_classes=n_classes,
                             prior=prior)

    def _run_chains(self, post, common, rngs, observer):
        chain = _METHOD_TABLE[self.method].chain
        sequential = self.n_chains == 1 or self.n_jobs in (None, 1)
        if not sequential:
            if observer is not None:
                raise ValueError("observer needs the chains in this process; pass n_jobs=1 (or n_chains=1) to "
                                 "observe them.")
            from joblib import Parallel, delayed
            # no backend named: joblib's active one (``joblib.parallel_config(backend="dask")`` runs the chains on a
            # Dask cluster), local processes (loky) by default
            it = Parallel(n_jobs=self.n_jobs, return_as="generator")(
                delayed(_run_chain)(chain, post, dict(common, seed=r)) for r in rngs)
            if self.progress:
                it = _import_tqdm()(it, total=len(rngs), desc=f"{self.method} chains", leave=False)
            return list(it)
        bar = None
        if self.progress:
            bar = _import_tqdm()(total=common["n_iter"] * len(rngs), desc=f"{self.method} chains", leave=False)

        def observe(step):
            if bar is not None:
                bar.update(1)
            if observer is not None:
                observer(step)

        chains = [_run_chain(chain, post, dict(common, seed=r, observer=observe if bar or observer else None))
                  for r in rngs]
        if bar is not None:
            bar.close()
        return chains

    def _fit(self, X, y_codes, n_classes, observer, params):
        n_iter, n_burnin, prior, sampler = params
        self.x_min_ = X.min(axis=0)
        with np.errstate(over="ignore"):
            rng_ = X.max(axis=0) - self.x_min_
        if not np.all(np.isfinite(rng_)):
            raise ValueError("X has a column whose range overflows (values near ±1e308); rescale X first.")
        self.x_range_ = np.where(rng_ > 0, rng_, 1.0)
        Xs = (X - self.x_min_) / self.x_range_
        rngs = _chain_seeds(self.random_state, self.n_chains)
        post = self._posterior(Xs, y_codes, n_classes, prior)
        chains = self._run_chains(post, dict(n_iter=n_iter, n_burnin=n_burnin, sampler=sampler), rngs, observer)
        self.h_ = chains[0].h
        self.chains_ = chains
        self.trees_ = [t for c in chains for t in c.trees]
        self.n_leaves_ = np.array([c.n_leaves for c in chains])
        self.log_posterior_ = np.array([c.log_posterior for c in chains])
        self.moves_ = np.array([c.move for c in chains])
        self.accepted_ = np.array([c.accepted for c in chains])
        self.divergences_ = np.array([c.divergences for c in chains])
        acc = {}
        for k, name in enumerate(MOVE_NAMES):
            mask = self.moves_ == k
            if mask.any():
                acc[name] = float(self.accepted_[mask].mean())
        acc["all"] = float(self.accepted_.mean())
        self.acceptance_ = acc
        return chains

    def _scaled(self, X):
        check_is_fitted(self, "trees_")
        X = validate_X(self, X, preset="finite", reset=False)
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
        return tree_leaf_weights(tree, Xs, self.h_ if _METHOD_TABLE[self.method].soft else None)

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
        The package's seed rule (an int in [0, 2**32 - 1], a RandomState or None, as in
        scikit-learn), with a SeedSequence allowed as well. Seeds the chains through ``numpy.random.SeedSequence`` (one child per chain).
        Chain ``i`` of ``random_state=s`` is chain ``i - a`` of
        ``random_state=SeedSequence(s, n_children_spawned=a)``, so a long run can be
        split into batches of chains.
    n_chains : int, default=1
    n_jobs : int or None
        Chains run in parallel with joblib when ``n_jobs != 1``, on joblib's active backend (local
        processes by default; inside ``joblib.parallel_config(backend="dask")`` on a Dask cluster).
    prior : TreePrior or None, default=None
        Tree prior p_split(d) = α(1+d)^−β and the priors μ_k ~ N(mu_loc, mu_scale²),
        σ ~ InverseGamma(sigma_a, sigma_b); ``None`` means ``TreePrior()`` (the paper's values
        for the CGM data: α = 0.45, β = 2.5, 0, 1, 1.5, 1.5). The priors of μ and σ act on the
        scale the chains see: the standardised target when ``standardize_y=True`` (the
        default), the raw target otherwise. ``method="cgm"`` uses only α and β (its conjugate
        leaf prior is scaled by the data, so CGM's posterior over trees does not depend on the
        units of y).
    sampler : RJHMCSettings or None, default=None
        NUTS warm-up steps on each side of every jump (``k_warmup``, 500 as in the paper), the
        split-softness schedule (``h_init``, ``h_final``; ``None`` uses Table 4's CGM values,
        HMC-DF 0.001 → 0.001, HMC-DFI 0.01 → 0.001), the move probabilities in burn-in and
        sampling, NUTS's tree-depth limit and target acceptance, and ``prune_start`` (where the
        NUTS run after a prune starts: the paper's rule or the authors' code's positional copy,
        see ``rjhmc_chain``); ``None`` means ``RJHMCSettings()``. With ``method="cgm"`` pass a
        ``CGMSettings`` (its move probabilities) or ``None`` (``CGMSettings()``); a settings record of
        the other method raises a ``TypeError``.
    progress : bool, default=False
        Show a tqdm progress bar (tqdm must be installed).
    standardize_y : bool, default=True
        Fit the chains to ``(y - mean(y)) / std(y)`` and map predictions back, so that the
        paper's priors (μ ~ N(0, 1), σ ~ InverseGamma(1.5, 1.5)) are sensible for a target in
        any units, and predictions are equivariant under shifting and rescaling y (up to
        floating-point rounding; the standardised target is rounded to multiples of 2^-20, about
        1e-6 of its standard deviation, so that the chains themselves are identical).
        ``False`` runs on the raw target, as the RJHMC-Tree paper and
        the authors' code do on the CGM data (their y lies in 1..8 with noise σ = 0.2); the
        reproduction of Table 1 (``benchmarks/reproduce_rjhmc.py``) and chapter 10 use ``False``.

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
    >>> from tabular_trees.bayes import RJHMCSettings
    >>> settings = RJHMCSettings(k_warmup=30, h_init=0.05, h_final=0.05)
    >>> reg = BayesianTreeRegressor(n_iter=6, n_burnin=3, random_state=0, sampler=settings)
    >>> reg.fit(Xtr, ytr).predict(Xte).shape
    (50,)
    """

    _task = "regression"
    _parameter_table = {"standardize_y": Boolean()}

    def __init__(self, method="hmc-df", n_iter=1000, n_burnin=500, random_state=None, *, n_chains=1, n_jobs=None,
                 prior=None, sampler=None, progress=False, standardize_y=True):
        super().__init__(method=method, n_iter=n_iter, n_burnin=n_burnin, random_state=random_state,
                         n_chains=n_chains, n_jobs=n_jobs, prior=prior, sampler=sampler, progress=progress)
        self.standardize_y = standardize_y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # short chains in the generic checks
        return tags

    def fit(self, X, y, *, observer=None):
        """Run the chains on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        observer : callable, optional
            Called with a :class:`ChainStep` after every iteration of every chain (chains in this
            process only: ``n_jobs=1`` when ``n_chains > 1``).

        Returns
        -------
        self
        """
        params = self._check_params()
        _check_observer(observer)
        X = validate_X(self, X, preset="finite", reset=True)
        y = _column_or_1d(self, y)
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
        chains = self._fit(X, ys, None, observer, params)
        self.sigmas_ = np.concatenate([c.sigmas for c in chains]) * self.y_scale_
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
    >>> from tabular_trees.bayes import RJHMCSettings
    >>> settings = RJHMCSettings(k_warmup=30, h_init=0.05, h_final=0.05)
    >>> clf = BayesianTreeClassifier(n_iter=6, n_burnin=3, random_state=0, sampler=settings)
    >>> clf.fit(X, y).predict_proba(X[:2]).shape
    (2, 3)
    """

    _task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # short chains in the generic checks
        return tags

    def fit(self, X, y, *, observer=None):
        """Run the chains on ``(X, y)``; ``observer`` as in :meth:`BayesianTreeRegressor.fit`."""
        params = self._check_params()
        _check_observer(observer)
        X = validate_X(self, X, preset="finite", reset=True)
        self.classes_, codes = as_class_target(_column_or_1d(self, y), X.shape[0])
        chains = self._fit(X, codes, self.classes_.shape[0], observer, params)
        self.leaf_probs_ = [lp for c in chains for lp in c.leaf_probs]
        return self

    def sample_predict_proba(self, X, sample=None):
        """Class probabilities of posterior samples (``X`` and ``sample`` as in
        :meth:`BayesianTreeRegressor.sample_predictions`).

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
