"""Deprecated name of :mod:`tabular_trees.bayes.soft_split_tree`.

The module was renamed because ``tabular_trees.bayes.soft_tree`` and ``tabular_trees.soft_trees`` (the soft
decision tree ensembles) differed by one letter. Importing it still works for one release and warns; import
from :mod:`tabular_trees.bayes` or :mod:`tabular_trees.bayes.soft_split_tree` instead.
"""

import warnings

from . import soft_split_tree as _new

warnings.warn("tabular_trees.bayes.soft_tree is renamed tabular_trees.bayes.soft_split_tree; the old name will be "
              "removed in the next release.", DeprecationWarning, stacklevel=2)

__all__ = list(getattr(_new, "__all__", []))


def __getattr__(name):
    return getattr(_new, name)
