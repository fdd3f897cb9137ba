"""tabular_trees — the library behind the course *Tree ensembles for tabular learning*.

Submodules (import the one you need; importing the package itself stays light and
never imports plotting or data-frame libraries):

- :mod:`tabular_trees.datasets` — offline data sets used by the chapters.
- :mod:`tabular_trees.tree` — CART split search (numba) and teaching trees equal to scikit-learn's.
- :mod:`tabular_trees.boosting` — a teaching gradient booster (histograms, XGBoost's second-order formulas).
- :mod:`tabular_trees.shapley` — exact interventional Shapley values by enumerating coalitions (small models).
- :mod:`tabular_trees.ntk` — closed-form neural tangent kernels of soft tree ensembles (oblique, axis-aligned AAA/AAI), fused kernel bank.
- :mod:`tabular_trees.soft_trees` — finite soft-tree ensembles, their empirical NTK and gradient-descent training.
- :mod:`tabular_trees.mkl` — EasyMKL multiple kernel learning.
- :mod:`tabular_trees.dte` — decision tree embedding by leaf means and its LDA classifier.
- :mod:`tabular_trees.bayes` — Bayesian decision trees: soft trees, NUTS, RJHMC-Tree (HMC-DF/HMC-DFI) and the CGM sampler.
"""

from . import _numba_cache  # noqa: F401  (first: keys numba's cache on the package's sources)

__version__ = "0.2.0"

__all__ = ["__version__"]
