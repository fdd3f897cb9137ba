"""Bayesian decision trees: soft trees, their posteriors, NUTS, RJHMC-Tree and the CGM baseline.

Public API
----------
- :class:`BayesianTreeRegressor`, :class:`BayesianTreeClassifier` — scikit-learn estimators
  (``method`` = "hmc-df" | "hmc-dfi" | "cgm"), with per-sample predictions and leaf routing.
- :class:`SoftTree`, :func:`soft_leaf_probabilities`, :func:`predict_soft_tree`,
  :func:`predict_hard_tree`, :func:`tree_leaf_weights` — soft decision trees in flat arrays.
- :class:`TreePosterior`, :func:`log_tree_prior` — log-posteriors with analytic gradients.
- :func:`run_tree_nuts`, :func:`softness_schedule` — NUTS with Stan's adaptation on one topology.
- :func:`rjhmc_chain` — RJHMC-Tree (Algorithm 1); :func:`cgm_chain` — CGM random-walk MH.
- :func:`split_rhat`, :func:`effective_sample_size` — convergence diagnostics for chains.
- :class:`TreePrior`, :class:`RJHMCSettings`, :class:`CGMPrior` — validated records of the
  priors and sampler settings taken by the estimators, :class:`TreePosterior`,
  :func:`rjhmc_chain` and :func:`cgm_chain`.

Everything else (the compiled kernels, the stick-breaking transforms, the move proposals)
is private to the submodules and may change.

Compiled code and its cache: numba's ``cache=True`` keys a cached function on its own
source file only. Compiled call chains in this package cross files
(``_posterior_kernels._log_posterior_ws`` inlines ``soft_tree._sigmoid`` and calls
``_simplex._stick_forward``; ``nuts._run_nuts`` calls ``_posterior_kernels._log_posterior_ws``), so a change in
one file can leave a stale cached caller in another; the package-wide cache invalidation
of ``tabular_trees`` (keyed on all package sources) covers them.
"""

from .cgm import cgm_chain
from .diagnostics import effective_sample_size, split_rhat
from ._settings import CGMPrior, RJHMCSettings, TreePrior
from .estimators import BayesianTreeClassifier, BayesianTreeRegressor
from .nuts import run_tree_nuts, softness_schedule
from .posterior import TreePosterior, log_tree_prior
from .rjhmc import rjhmc_chain
from .soft_tree import SoftTree, predict_hard_tree, predict_soft_tree, soft_leaf_probabilities, tree_leaf_weights

__all__ = [
    "BayesianTreeRegressor", "BayesianTreeClassifier", "SoftTree", "soft_leaf_probabilities", "predict_soft_tree",
    "predict_hard_tree", "tree_leaf_weights", "TreePosterior", "log_tree_prior", "run_tree_nuts",
    "softness_schedule", "rjhmc_chain", "cgm_chain", "split_rhat", "effective_sample_size", "TreePrior",
    "RJHMCSettings", "CGMPrior",
]
