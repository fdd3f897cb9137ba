"""Key numba's on-disk cache on the whole package's sources, so an upgrade never runs stale machine code.

numba's ``cache=True`` stamps each cached function with its *own* source file only. A compiled
call chain that crosses files (``bayes/_nuts_kernels.py`` calls into ``bayes/_posterior_kernels.py``,
whose log-density kernels call one another) therefore keeps the old machine code
after an upgrade or a ``git pull`` that changed only the callee's file.

This module, imported first by :mod:`tabular_trees`, puts in front of numba's cache locators one
subclass of each of them that answers only for files of this package and returns, as the source
stamp, the pair (numba's own stamp of the file, a hash of every ``.py`` file of the package, of
numba's version and of its ``NUMBA_BOUNDSCHECK`` setting, which numba's own key ignores). Any change to any source file of the package thus invalidates every cached
function of the package (numba then recompiles and overwrites its index), and nothing outside
the package is affected. The hash reads the package's sources once per process (a few hundred
kB, about a millisecond).

Set the environment variable ``TABULAR_TREES_PLAIN_NUMBA_CACHE=1`` to switch this off (the
test suite does so to show the stale behaviour it prevents).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def package_source_hash(root=_PACKAGE_DIR):
    """SHA-256 over every ``.py`` file under ``root`` (path and content), numba's version and its boundscheck flag.

    numba's own cache key ignores ``NUMBA_BOUNDSCHECK``: without the flag in this key, a run under
    ``NUMBA_BOUNDSCHECK=1`` would load machine code compiled without bounds checks.
    """
    import numba

    h = hashlib.sha256(f"{numba.__version__}|boundscheck={numba.config.BOUNDSCHECK}".encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def numba_version():
    import numba

    return numba.__version__


def _in_package(py_file):
    try:
        return Path(py_file).resolve().is_relative_to(_PACKAGE_DIR)
    except (OSError, ValueError, TypeError):
        return False


def _keyed(base, key):
    """A subclass of numba locator ``base`` that serves only this package and adds ``key`` to the stamp."""

    class PackageKeyed(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if not _in_package(py_file):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return (super().get_source_stamp(), key)

    PackageKeyed.__name__ = PackageKeyed.__qualname__ = f"TabularTrees{base.__name__}"
    return PackageKeyed


def install():
    """Install the package-keyed locators once per process (idempotent); return the key or None."""
    if os.environ.get("TABULAR_TREES_PLAIN_NUMBA_CACHE", "") not in ("", "0"):
        return None
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None) or getattr(
        caching, "SourceFileBackedLocatorMixin", None
    )
    if impl is None or mixin is None or not hasattr(impl, "_locator_classes"):
        import warnings

        warnings.warn(
            f"tabular_trees cannot key numba {numba_version()}'s cache on its sources (unknown caching API); "
            "after upgrading tabular_trees, clear numba's cache (the __pycache__/*.nbi and *.nbc files).",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    if getattr(impl, "_tabular_trees_key", None) is not None:
        return impl._tabular_trees_key
    key = package_source_hash()
    ours = [_keyed(cls, key) for cls in impl._locator_classes if issubclass(cls, mixin)]
    impl._locator_classes = ours + list(impl._locator_classes)
    impl._tabular_trees_key = key
    return key


KEY = install()
