"""Input validation shared by every public function.

Everything here runs *before* compiled code, so numba kernels only ever see
finite, C-contiguous arrays of the expected shape and dtype. Errors name the
argument and say how to fix it.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_array, check_random_state, check_scalar

__all__ = [
    "as_float_matrix",
    "as_1d_target",
    "as_regression_target",
    "as_class_target",
    "check_scalar",
    "check_random_state",
    "check_generator_seed",
    "check_seed",
    "check_int",
    "check_real",
    "check_option",
    "reject_missing_labels",
    "as_finite_array",
    "check_finite_result",
    "as_kernel_matrix",
    "check_tree_arrays",
    "check_magnitude",
    "X_PRESETS",
    "validate_X",
    "check_params",
    "require_y",
    "Integer",
    "Real",
    "Options",
    "Boolean",
    "Instance",
    "RandomState",
]

#: Largest magnitude accepted where an algorithm squares its inputs (variances, Gram matrices,
#: gradient steps proportional to x times x): float64 overflows above ~1.8e308, so squares of
#: values above ~1.34e154 are infinite; 1e150 leaves room for sums over samples and features.
MAX_SQUARABLE = 1e150


def as_float_matrix(X, name="X", *, dtype=np.float64, min_samples=1, min_features=1):
    """Return ``X`` as a finite, C-contiguous 2-D float array or raise a clear error."""
    if X is None:
        raise TypeError(f"{name} must be an array-like of shape (n_samples, n_features), got None.")
    arr = np.asarray(X) if not hasattr(X, "dtype") or X.dtype == object else X
    if getattr(arr, "ndim", 2) == 1:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features), got a 1-D array of shape "
            f"{np.shape(arr)}. Reshape your data with {name}.reshape(-1, 1) for a single feature "
            f"or {name}.reshape(1, -1) for a single sample."
        )
    try:
        out = check_array(
            X,
            dtype=dtype,
            order="C",
            ensure_2d=True,
            ensure_min_samples=min_samples,
            ensure_min_features=min_features,
            input_name=name,
        )
    except ValueError as exc:
        raise ValueError(f"Invalid {name}: {exc}") from None
    return out


def as_1d_target(y, n_samples=None, name="y"):
    """Return ``y`` as a non-empty 1-D array (a single column is flattened), checking its length."""
    if y is None:
        raise TypeError(f"{name} must be an array-like of shape (n_samples,), got None.")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n_samples,), got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed.")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} samples but X has {n_samples}; they must have the same length."
        )
    return arr


def as_regression_target(y, n_samples, name="y"):
    """Return ``y`` as a finite 1-D float64 array of length ``n_samples``."""
    arr = as_1d_target(y, n_samples, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric for regression, got dtype {arr.dtype}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; drop or impute those samples first.")
    return arr


def as_class_target(y, n_samples, name="y", *, min_classes=2, allow_continuous=False):
    """Encode class labels of any type; return ``(classes, codes)`` with codes in 0..K-1.

    ``allow_continuous=True`` accepts non-integer float labels (each distinct value is a class),
    which teaching functions such as :func:`tabular_trees.tree.node_impurity` allow.
    """
    arr = as_1d_target(y, n_samples, name)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must hold class labels, got complex dtype {arr.dtype}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; drop those samples first.")
    reject_missing_labels(arr, name)
    if not allow_continuous and arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        raise ValueError(
            f"{name} has continuous float values; a classifier needs class labels. "
            "Use a regressor for a continuous target."
        )
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"{name} labels must be mutually comparable (all numbers or all strings): {exc}") from None
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"{name} has {classes.shape[0]} class(es) but at least {min_classes} are needed; "
            "check that the training set contains every class."
        )
    return classes, np.ascontiguousarray(codes.ravel(), dtype=np.int64)


def reject_missing_labels(y, name="y"):
    """Raise a clear ``ValueError`` if an object label array holds None or NaN (before any sorting)."""
    arr = np.asarray(y)
    if arr.dtype.kind == "O" and any(
        v is None or (isinstance(v, (float, np.floating)) and not np.isfinite(v)) for v in arr.ravel()
    ):
        raise ValueError(f"{name} contains None or NaN labels; drop those samples or give them a class first.")
    return y


def check_int(value, name, *, min_val=None, max_val=None, allow_none=False):
    """Validate an integer hyperparameter (bools are rejected)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}.")
    return int(check_scalar(int(value), name, numbers.Integral, min_val=min_val, max_val=max_val))


def check_real(value, name, *, min_val=None, max_val=None, include_boundaries="both"):
    """Validate a finite real hyperparameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}.")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return float(
        check_scalar(
            value, name, numbers.Real, min_val=min_val, max_val=max_val, include_boundaries=include_boundaries
        )
    )


def check_option(value, name, options):
    """Validate a string option against the allowed set."""
    if value not in options:
        raise ValueError(f"{name} must be one of {sorted(options)!r}, got {value!r}.")
    return value


def as_kernel_matrix(X, n_features, name="X", *, dtype=np.float64, allow_nan=False, exact=True):
    """Return ``X`` as a C-contiguous 2-D array with ``n_features`` columns for a compiled kernel.

    Compiled tree traversals index ``X[i, feature[node]]`` without bounds checks, so a matrix
    with too few columns would be read out of bounds; this is the check that prevents it.
    ``exact=False`` accepts more columns than ``n_features`` (the tree uses the first ones).
    """
    if X is None:
        raise TypeError(f"{name} must be an array-like of shape (n_samples, {n_features}), got None.")
    if allow_nan:
        arr = np.asarray(X) if not hasattr(X, "dtype") or X.dtype == object else X
        if getattr(arr, "ndim", 2) != 2:
            raise ValueError(f"{name} must be 2-D of shape (n_samples, {n_features}), got shape {np.shape(arr)}.")
        try:
            out = check_array(X, dtype=dtype, order="C", ensure_all_finite="allow-nan", input_name=name)
        except ValueError as exc:
            raise ValueError(f"Invalid {name}: {exc}") from None
    else:
        out = as_float_matrix(X, name, dtype=dtype)
    if out.shape[1] < n_features or (exact and out.shape[1] != n_features):
        need = n_features if exact else f"at least {n_features}"
        raise ValueError(
            f"{name} has {out.shape[1]} features (columns) but the tree needs {need}; "
            f"pass the same columns, in the same order, as at fit time."
        )
    return out


def check_tree_arrays(children_left, children_right, feature, n_features=None, *, internal=None):
    """Check that node arrays describe a tree a compiled traversal can walk safely.

    ``internal`` marks the split nodes (default ``children_left != -1``); each must have two
    children with later node indices below ``node_count`` and split on a feature in
    ``0..n_features-1`` (any non-negative feature when ``n_features`` is None).
    """
    cl = np.asarray(children_left)
    cr = np.asarray(children_right)
    f = np.asarray(feature)
    n = cl.shape[0] if cl.ndim == 1 else -1
    if n < 1 or cr.shape != (n,) or f.shape != (n,):
        raise ValueError("tree arrays children_left, children_right and feature must be 1-D of one common length >= 1.")
    internal = cl != -1 if internal is None else np.asarray(internal, dtype=bool)
    idx = np.arange(n)
    bad_child = internal & ((cl <= idx) | (cl >= n) | (cr <= idx) | (cr >= n))
    if np.any(bad_child):
        raise ValueError(
            f"tree arrays are inconsistent at node {int(np.flatnonzero(bad_child)[0])}: children must be -1 "
            "(leaf) or a later node index below node_count."
        )
    hi = np.iinfo(np.int64).max if n_features is None else n_features
    if np.any(internal & ((f < 0) | (f >= hi))):
        raise ValueError(f"tree splits on a feature outside 0..{hi - 1}.")
    return cl, cr, f


def as_finite_array(a, name, *, ndim=None, allow_empty=True):
    """Return ``a`` as a finite float64 array (any shape unless ``ndim`` is given) or raise a clear error."""
    if a is None:
        raise TypeError(f"{name} must be a numeric array, got None.")
    if hasattr(a, "tocsr"):
        raise TypeError(f"{name} is a sparse matrix; pass a dense array ({name}.toarray()).")
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric: {exc}.") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}.")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; pass finite values.")
    return arr


def check_finite_result(out, what, hint):
    """Raise a ``ValueError`` when a computed result overflowed (inputs of an absurd scale)."""
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} overflowed float64 (non-finite result): {hint}")
    return out


def check_magnitude(a, name, *, limit=MAX_SQUARABLE, why="its squares overflow float64", fix=None):
    """Raise a ``ValueError`` naming ``name`` when a finite array has values beyond ``limit`` in magnitude.

    For arithmetic that would overflow (or lose every significant digit) on such values; the check
    only reads ``a``, so every accepted input is processed exactly as before.
    """
    arr = np.asarray(a)
    if arr.size == 0:
        return a
    peak = float(np.max(np.abs(arr)))
    if peak > limit:
        fix = fix or f"rescale {name}, e.g. with sklearn.preprocessing.StandardScaler"
        raise ValueError(
            f"{name} has values up to {peak:.3g} in magnitude, beyond the limit {limit:.0e}: {why}. "
            f"Fix: {fix}."
        )
    return a


# --------------------------------------------------------------------------- the estimators' one path
# Every estimator validates X through ``validate_X`` with one of these presets (scikit-learn's
# ``validate_data`` underneath: feature names and counts, dtype, finiteness) and its hyperparameters
# through ``check_params`` against the table it declares. Plain functions use ``as_float_matrix``
# (data matrices, optionally with a required number of columns) and ``as_finite_array`` (any other array).
X_PRESETS = {
    # finite float64, C order: what every compiled kernel reads
    "finite": dict(dtype=np.float64, order="C"),
    # at least two samples to fit (a spread, a split, a validation fold)
    "finite_fit2": dict(dtype=np.float64, order="C", ensure_min_samples=2),
    # float32 with NaN allowed: the CART trees, which route missing values like scikit-learn's
    "missing_float32": dict(dtype=np.float32, order="C", ensure_all_finite="allow-nan"),
    # finite float64 in the caller's memory order: estimators that compute with NumPy/BLAS only
    # (no compiled kernel), whose last bits depend on the order (pandas' to_numpy() gives F order)
    "finite_any_order": dict(dtype=np.float64),
}


def validate_X(estimator, X, y=None, *, preset="finite", reset, **y_options):
    """Validate ``X`` (and ``y`` if given) for ``estimator`` with a named preset of :data:`X_PRESETS`.

    ``reset=True`` (fit) records ``n_features_in_`` and ``feature_names_in_``; ``reset=False``
    (predict, transform) checks them. Returns ``X`` or ``(X, y)`` as scikit-learn's ``validate_data``.
    """
    from sklearn.utils.validation import validate_data

    if preset not in X_PRESETS:
        raise ValueError(f"preset must be one of {sorted(X_PRESETS)}, got {preset!r}.")
    if y is None:
        return validate_data(estimator, X, reset=reset, **X_PRESETS[preset])
    return validate_data(estimator, X, y, reset=reset, **X_PRESETS[preset], **y_options)


class Integer:
    """Hyperparameter rule: an int in ``[low, high]`` (``None`` bounds are open; bools rejected)."""

    def __init__(self, low=None, high=None, *, allow_none=False):
        self.low, self.high, self.allow_none = low, high, allow_none

    def __call__(self, value, name):
        return check_int(value, name, min_val=self.low, max_val=self.high, allow_none=self.allow_none)


class Real:
    """Hyperparameter rule: a finite real between ``low`` and ``high``; ``closed`` as scikit-learn's ``check_scalar``."""

    def __init__(self, low=None, high=None, *, closed="both", allow_none=False):
        self.low, self.high, self.closed, self.allow_none = low, high, closed, allow_none

    def __call__(self, value, name):
        if value is None and self.allow_none:
            return None
        return check_real(value, name, min_val=self.low, max_val=self.high, include_boundaries=self.closed)


class Options:
    """Hyperparameter rule: one of a fixed set of values (strings, usually)."""

    def __init__(self, *options):
        self.options = set(options)

    def __call__(self, value, name):
        if not isinstance(value, (str, type(None))) and all(isinstance(o, str) for o in self.options):
            raise TypeError(f"{name} must be one of {sorted(self.options)!r}, got {type(value).__name__} {value!r}.")
        return check_option(value, name, self.options)


class Boolean:
    """Hyperparameter rule: ``True`` or ``False`` (NumPy bools accepted, returned as ``bool``)."""

    def __call__(self, value, name):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r}.")
        return bool(value)


class Instance:
    """Hyperparameter rule: an instance of ``types`` (or ``None`` when allowed); ``example`` shows the fix."""

    def __init__(self, *types, allow_none=True, example=None):
        self.types, self.allow_none, self.example = types, allow_none, example

    def __call__(self, value, name):
        if value is None and self.allow_none:
            return None
        if not isinstance(value, self.types):
            names = " or ".join(t.__name__ for t in self.types) + (" or None" if self.allow_none else "")
            hint = f"; e.g. {name}={self.example}" if self.example else ""
            raise TypeError(f"{name} must be a {names}, got {type(value).__name__} {value!r}{hint}.")
        return value


def check_seed_value(value, name="random_state", *, allow_seed_sequence=False):
    """The project's one seed rule: return ``value`` if it is a seed scikit-learn accepts, else raise.

    Accepted: ``None``, an int in ``[0, 2**32 - 1]`` (Python or NumPy integer) or a
    ``numpy.random.RandomState`` -- what scikit-learn's ``random_state`` parameters accept, except
    ``True``/``False``, which scikit-learn takes as the seeds 1 and 0 and this project refuses as it
    refuses bools for every integer parameter. With ``allow_seed_sequence`` also a
    ``numpy.random.SeedSequence`` (the Bayesian estimators spawn one child per chain from it, so a long
    run can be split over machines). Errors name ``name``.
    """
    accepted = (np.random.RandomState, np.random.SeedSequence) if allow_seed_sequence else np.random.RandomState
    if value is None or isinstance(value, accepted):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        kinds = "a numpy.random.RandomState" + (" or SeedSequence" if allow_seed_sequence else "")
        raise TypeError(
            f"{name} must be None, an int in [0, 2**32 - 1] or {kinds}, got {type(value).__name__} {value!r}."
        )
    return check_int(value, name, min_val=0, max_val=2**32 - 1)


def check_seed(value, name="random_state"):
    """Validate ``value`` with :func:`check_seed_value` and return scikit-learn's ``check_random_state`` of it.

    Every public function and estimator of the package that draws from a ``RandomState`` turns its
    ``random_state`` into a generator through this function, so one rule decides what a seed is; the
    generator is the one scikit-learn would build, so every random draw is unchanged.
    """
    return check_random_state(check_seed_value(value, name))


def check_generator_seed(value, name="seed"):
    """The seed rule for code that draws from a ``numpy.random.Generator`` (the Bayesian chains).

    A ``Generator`` is used as it is; anything else must pass :func:`check_seed_value` (a
    ``SeedSequence`` allowed) and seeds ``numpy.random.default_rng``, so an int gives the generator
    ``default_rng(int)`` always gave. A ``RandomState`` gives up one draw to seed the generator.
    """
    if isinstance(value, np.random.Generator):
        return value
    value = check_seed_value(value, name, allow_seed_sequence=True)
    if isinstance(value, np.random.RandomState):
        value = int(value.randint(0, 2**32 - 1, dtype=np.int64))
    return np.random.default_rng(value)


class RandomState:
    """Hyperparameter rule: ``None``, an int or a ``numpy.random.RandomState`` (:func:`check_seed_value`);
    with ``allow_seed_sequence=True`` also a ``numpy.random.SeedSequence``."""

    def __init__(self, *, allow_seed_sequence=False):
        self.allow_seed_sequence = allow_seed_sequence

    def __call__(self, value, name):
        return check_seed_value(value, name, allow_seed_sequence=self.allow_seed_sequence)


def check_params(estimator):
    """Check ``estimator``'s hyperparameters against the table its class declares; return the checked values.

    Each estimator class declares ``_parameter_table = {name: rule}`` (rules: :class:`Integer`,
    :class:`Real`, :class:`Options`, :class:`Boolean`, :class:`Instance`, :class:`RandomState`, or any
    callable ``rule(value, name)``); tables of base classes are merged, subclasses win. Called once, at
    ``fit``, so ``__init__`` only stores what it is given (scikit-learn's convention). Constraints
    between parameters (``n_burnin < n_iter``) stay with the estimator, after this call.
    """
    table = {}
    for cls in reversed(type(estimator).__mro__):
        table.update(getattr(cls, "_parameter_table", None) or {})
    return {name: rule(getattr(estimator, name), name) for name, rule in table.items()}


def require_y(estimator, y):
    """Return ``y``, or raise scikit-learn's ``ValueError`` when a supervised ``fit`` got ``y=None``.

    :func:`validate_X` validates ``X`` alone when ``y`` is None, so a supervised estimator calls
    ``validate_X(self, X, require_y(self, y), ...)`` to refuse a missing target in the words of
    scikit-learn's ``validate_data`` (which its ``check_requires_y_none`` expects).
    """
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None; pass the targets "
            "(class labels or values) as y."
        )
    return y
