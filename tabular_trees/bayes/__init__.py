"""Bayesian decision trees: soft trees, their posteriors, NUTS, RJHMC-Tree and the CGM baseline.

Public API
----------
- :class:`BayesianTreeRegressor`, :class:`BayesianTreeClassifier` — scikit-learn estimators
  (``method`` = "hmc-df" | "hmc-dfi" | "cgm").
- :class:`SoftTree`, :func:`soft_leaf_probabilities`, :func:`predict_soft_tree`,
  :func:`predict_hard_tree` — soft decision trees in flat arrays.
- :class:`TreePosterior`, :func:`log_tree_prior`, stick-breaking transforms — log-posteriors
  with analytic gradients.
- :func:`run_tree_nuts`, :func:`sample_gaussian`, :func:`adaptation_schedule`,
  :func:`softness_schedule` — NUTS with Stan's adaptation.
- :func:`rjhmc_chain`, :func:`propose_move` — RJHMC-Tree (Algorithm 1).
- :func:`cgm_chain`, :func:`cgm_log_marginal`, :func:`cgm_log_prior` — CGM random-walk MH.
"""

from .cgm import cgm_chain, cgm_log_marginal, cgm_log_prior
from .estimators import BayesianTreeClassifier, BayesianTreeRegressor
from .nuts import adaptation_schedule, run_tree_nuts, sample_gaussian, softness_schedule
from .posterior import (TreePosterior, log_tree_prior, stick_breaking, stick_breaking_inverse,
                        stick_breaking_log_jacobian)
from .rjhmc import propose_move, rjhmc_chain
from .soft_tree import SoftTree, predict_hard_tree, predict_soft_tree, soft_leaf_probabilities

__all__ = [
    "BayesianTreeRegressor", "BayesianTreeClassifier", "SoftTree", "soft_leaf_probabilities", "predict_soft_tree",
    "predict_hard_tree", "TreePosterior", "log_tree_prior", "stick_breaking", "stick_breaking_inverse",
    "stick_breaking_log_jacobian", "run_tree_nuts", "sample_gaussian", "adaptation_schedule", "softness_schedule",
    "rjhmc_chain", "propose_move", "cgm_chain", "cgm_log_marginal", "cgm_log_prior",
]
