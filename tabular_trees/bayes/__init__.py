"""Bayesian decision trees: soft trees, their posteriors, NUTS, RJHMC-Tree and the CGM baseline.

Public API
----------
- :class:`BayesianTreeRegressor`, :class:`BayesianTreeClassifier` — scikit-learn estimators
  (``method`` = "hmc-df" | "hmc-dfi" | "cgm"), with per-sample predictions and leaf routing.
- :class:`SoftTree`, :func:`soft_leaf_probabilities`, :func:`predict_soft_tree`,
  :func:`predict_hard_tree`, :func:`tree_leaf_weights` — soft decision trees in flat arrays.
- :class:`TreePosterior`, :func:`log_tree_prior` — log-posteriors with analytic gradients.
- :func:`run_tree_nuts` (returns a :class:`NUTSResult` with :class:`NUTSStats`),
  :func:`softness_schedule` — NUTS with Stan's adaptation on one topology.
- :func:`rjhmc_chain` — RJHMC-Tree (Algorithm 1) on a :class:`TreePosterior`; :func:`cgm_chain` —
  CGM random-walk MH on a :class:`CGMPosterior`. One contract: ``chain(posterior, *, n_iter,
  n_burnin, seed, sampler=None, observer=None)``, returning a :class:`ChainResult`; the
  ``observer`` receives a :class:`ChainStep` after every iteration.
- :func:`split_rhat`, :func:`effective_sample_size` — convergence diagnostics for chains.
- :class:`TreePrior`, :class:`RJHMCSettings`, :class:`NUTSSettings`, :class:`CGMPrior`,
  :class:`CGMSettings` — validated records of the priors and sampler settings
  (``RJHMCSettings.nuts(use_simplex)`` gives the :class:`NUTSSettings` of its NUTS runs).

Everything else (the compiled kernels, the stick-breaking transforms, the move proposals)
is private to the submodules and may change. Compiled code lives in the private kernel
modules ``_posterior_kernels``, ``_nuts_kernels``, ``_soft_split_tree_kernels`` and ``_simplex``.

Compiled code and its cache: numba's ``cache=True`` keys a cached function on its own
source file only. Compiled call chains in this package cross files
(``_posterior_kernels._log_posterior_ws`` calls ``_simplex._stick_forward``;
``_nuts_kernels._run_nuts`` calls ``_posterior_kernels._log_posterior_ws``), so a change in
one file can leave a stale cached caller in another; the package-wide cache invalidation
of ``tabular_trees`` (keyed on all package sources) covers them.
"""

from ._chain import ChainResult, ChainStep
from ._settings import CGMPrior, CGMSettings, NUTSSettings, RJHMCSettings, TreePrior
from .cgm import CGMPosterior, cgm_chain
from .diagnostics import effective_sample_size, split_rhat
from .estimators import BayesianTreeClassifier, BayesianTreeRegressor
from .nuts import NUTSResult, NUTSStats, run_tree_nuts, softness_schedule
from .posterior import TreePosterior, log_tree_prior
from .rjhmc import rjhmc_chain
from .soft_split_tree import SoftTree, predict_hard_tree, predict_soft_tree, soft_leaf_probabilities, tree_leaf_weights

__all__ = [
    "BayesianTreeRegressor", "BayesianTreeClassifier", "SoftTree", "soft_leaf_probabilities", "predict_soft_tree",
    "predict_hard_tree", "tree_leaf_weights", "TreePosterior", "log_tree_prior", "run_tree_nuts",
    "softness_schedule", "NUTSResult", "NUTSStats", "rjhmc_chain", "CGMPosterior", "cgm_chain", "ChainResult",
    "ChainStep", "split_rhat", "effective_sample_size", "TreePrior", "RJHMCSettings", "NUTSSettings", "CGMPrior",
    "CGMSettings",
]

# ``tabular_trees.bayes.soft_tree`` (renamed ``soft_split_tree``: it differed from ``tabular_trees.soft_trees``
# by one letter) stays importable for one release; reading a name from it warns.
from .. import _deprecation  # noqa: E402
from . import soft_split_tree as _soft_split_tree  # noqa: E402

_soft_tree_alias = _deprecation.moved_module(__name__ + ".soft_tree", _soft_split_tree)


def __getattr__(name):
    if name == "soft_tree":
        return _soft_tree_alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
