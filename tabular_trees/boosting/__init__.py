"""A teaching gradient booster with XGBoost's second-order trees on histograms.

Each boosting round fits one regression tree (per class for more than two
classes) to the first and second derivatives of the loss at the current
predictions. With ``g_i = dL/df`` and ``h_i = d^2L/df^2`` summed over the rows of
a leaf (``G``, ``H``) the regularised objective of Chen & Guestrin (2016),
``sum_i L(y_i, f_i) + gamma T + lambda/2 sum_leaves w^2``, gives

* the optimal leaf weight ``w* = -G / (H + lambda)``   (:func:`leaf_weight`),
* the gain of splitting a node into L and R
  ``1/2 [G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) - (G_L+G_R)^2/(H_L+H_R+lambda)] - gamma``
  (:func:`split_gain`).

The tree added in a round contributes ``learning_rate * w*`` in each leaf
(shrinkage), which is also what XGBoost writes in its tree dumps.

Split finding uses histograms: every feature is cut once, before boosting,
into at most ``max_bins`` bins (:func:`compute_bin_edges`, :func:`bin_data`),
and a node's candidate splits are the bin boundaries, scored from per-bin sums
of ``g`` and ``h`` (:func:`build_histogram`). Trees grow depth-wise to
``max_depth`` (``max_depth=1`` gives stumps).

One module per idea: ``formulas`` (:func:`leaf_weight`, :func:`split_gain`), ``losses``
(:class:`SquaredError`, :class:`LogisticLoss`, :class:`SoftmaxLoss`), ``binning`` (bin edges, bin
codes and histograms), ``boosted_tree`` (:class:`BoostedTree` and its growth; it was ``tree`` until
0.2, an alias that still works with a ``DeprecationWarning`` until 0.3) and ``estimators``
(:class:`GradientBoostingRegressor`, :class:`GradientBoostingClassifier`); the compiled kernels
live in the private ``_boosting_kernels``. Import every public name from ``tabular_trees.boosting``.

Differences from XGBoost worth knowing (checked in ``tests/test_boosting.py``):

* XGBoost's code scores splits *without* the factor 1/2 and compares that to
  its ``gamma`` (``min_split_loss``); so its reported ``Gain`` is
  ``2 * (split_gain + gamma)`` and its ``gamma`` equals ``2 * gamma`` here.
* XGBoost's multiclass softmax uses the Hessian ``2 p (1 - p)``; here the
  exact diagonal ``p (1 - p)`` is used.
* A node is split only when its best gain (with ``-gamma``) is positive
  (pre-pruning, as XGBoost's ``hist`` grower does). XGBoost's ``exact`` method
  grows with ``gamma = 0`` and prunes afterwards, bottom-up, the splits whose
  gain is below ``gamma``; it can therefore keep a weak split that has a strong
  split below it, where this implementation stops. In the tests the two agree.
* Bins: XGBoost ``hist`` and LightGBM choose cut points with their own
  (weighted) quantile sketches, so with many distinct values their candidate
  splits differ slightly from :func:`compute_bin_edges`; with at most
  ``max_bins`` distinct values per feature all three coincide with exact
  greedy search.
* Single-threaded kernels; no row or column subsampling.
* No missing-value handling: ``NaN`` in ``X`` raises an error.
"""

from .. import _deprecation
from . import boosted_tree as _boosted_tree
from .binning import bin_data, build_histogram, compute_bin_edges
from .boosted_tree import BoostedTree
from .estimators import GradientBoostingClassifier, GradientBoostingRegressor
from .formulas import leaf_weight, split_gain
from .losses import LogisticLoss, SoftmaxLoss, SquaredError

__all__ = [
    "leaf_weight",
    "split_gain",
    "SquaredError",
    "LogisticLoss",
    "SoftmaxLoss",
    "compute_bin_edges",
    "bin_data",
    "build_histogram",
    "BoostedTree",
    "GradientBoostingRegressor",
    "GradientBoostingClassifier",
]

# ``tabular_trees.boosting.tree`` (renamed ``boosted_tree``: ``tabular_trees.tree`` is the CART module)
# stays importable for one release; reading a name from it warns.
_tree_alias = _deprecation.moved_module(__name__ + ".tree", _boosted_tree)


def __getattr__(name):
    if name == "tree":
        return _tree_alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
