"""Old import paths kept for one release: a moved module answers with a ``DeprecationWarning``.

:func:`moved_module` registers, under the old dotted name, a stand-in module whose attributes are
read from the new module with a warning that names both paths, so
``from tabular_trees.boosting.tree import BoostedTree`` keeps working (and warns) although no file
of that name exists any more.
"""

from __future__ import annotations

import sys
import types
import warnings

#: The release that removes the old paths.
REMOVAL = "0.3.0"


def _warn(old, new):
    warnings.warn(
        f"{old} is deprecated and will be removed in tabular-trees {REMOVAL}; use {new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


class _MovedModule(types.ModuleType):
    def __init__(self, old, new):
        super().__init__(old, f"Deprecated alias of :mod:`{new.__name__}` (removed in {REMOVAL}).")
        self._new = new

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._new, name)
        _warn(f"{self.__name__}.{name}", f"{self._new.__name__}.{name}")
        return value

    def __dir__(self):
        return dir(self._new)


def moved_module(old, new):
    """Register ``old`` (a dotted module name) in ``sys.modules`` as a warning alias of module ``new``."""
    alias = sys.modules.get(old)
    if not isinstance(alias, _MovedModule):
        alias = sys.modules[old] = _MovedModule(old, new)
    return alias
