"""Exact interventional Shapley values by enumerating every coalition.

This is the brute-force definition that ``shap.TreeExplainer`` computes fast for
trees (Lundberg & Lee 2017; Lundberg et al. 2020). For a model ``f`` with ``p``
features, a point ``x`` and a background set ``b_1, ..., b_m``, the
*interventional* value of a coalition ``S`` of features is

.. math::

    v_x(S) = \\frac{1}{m} \\sum_{k=1}^{m} f\\bigl(x_S, (b_k)_{\\bar S}\\bigr),

the model evaluated on the hybrid point that takes the features in ``S`` from
``x`` and the others from a background row, averaged over the background. The
Shapley value of feature ``j`` is

.. math::

    \\phi_j(x) = \\sum_{S \\subseteq N \\setminus \\{j\\}}
        \\frac{|S|!\\,(p-|S|-1)!}{p!}\\,\\bigl[v_x(S \\cup \\{j\\}) - v_x(S)\\bigr],

and ``v_x(emptyset) = E_b f(b)`` is the base value, so that
``E_b f(b) + sum_j phi_j(x) = f(x)`` (efficiency / additivity).

The model is any callable (``model.predict``) and is treated as a black box:
all ``2^p m`` hybrid points of a sample are built in batches and passed to it
with one call per batch. The cost is ``n 2^p m`` model evaluations, so this is a
*checking* tool for small models (``p <= 10`` by default), not a replacement for
TreeSHAP. Compiled kernels (numba, in the private module ``_shapley_kernels``)
build the hybrid points, average the predictions into the value table ``v`` and
combine ``v`` with the Shapley weights.
"""

from __future__ import annotations

import math

import numpy as np

from ._shapley_kernels import accumulate_values, fill_hybrids, interaction_kernel, shapley_kernel
from ._validation import as_float_matrix, check_int

__all__ = [
    "coalition_values",
    "shapley_from_coalition_values",
    "interaction_from_coalition_values",
    "interventional_shapley",
    "interventional_shapley_interactions",
]

#: Hard ceiling on ``max_features``: 2**24 coalitions per sample is already far beyond "brute force".
_MAX_FEATURES_CEILING = 24


# --------------------------------------------------------------------------------------------
# Weights and validation helpers.
# --------------------------------------------------------------------------------------------


def _popcounts(p):
    masks = np.arange(1 << p, dtype=np.int64)
    sizes = np.zeros(1 << p, dtype=np.int64)
    for j in range(p):
        sizes += (masks >> j) & 1
    return sizes


def _shapley_weights(p):
    """``|S|! (p - |S| - 1)! / p!`` for ``|S| = 0 .. p - 1`` (and 0 for ``|S| = p``)."""
    w = np.zeros(p + 1, dtype=np.float64)
    for s in range(p):
        w[s] = math.factorial(s) * math.factorial(p - s - 1) / math.factorial(p)
    return w


def _interaction_weights(p):
    """``|S|! (p - |S| - 2)! / (p - 1)!`` for ``|S| = 0 .. p - 2`` (0 beyond)."""
    w = np.zeros(p + 1, dtype=np.float64)
    for s in range(p - 1):
        w[s] = math.factorial(s) * math.factorial(p - s - 2) / math.factorial(p - 1)
    return w


def _check_inputs(predict, X, background, max_features, batch_size):
    if not callable(predict):
        raise TypeError(
            "predict must be a callable mapping an (n, p) array to n outputs, e.g. model.predict; "
            f"got {type(predict).__name__}."
        )
    max_features = check_int(max_features, "max_features", min_val=1, max_val=_MAX_FEATURES_CEILING)
    batch_size = check_int(batch_size, "batch_size", min_val=1)
    X = as_float_matrix(X, "X")
    background = as_float_matrix(background, "background")
    p = X.shape[1]
    if background.shape[1] != p:
        raise ValueError(
            f"background has {background.shape[1]} columns but X has {p}; the background must be "
            "rows of the same feature space as X (same columns, same order)."
        )
    if p > max_features:
        raise ValueError(
            f"X has {p} features, more than max_features={max_features}. Exact Shapley values "
            f"enumerate all 2**{p} = {2 ** p} coalitions per sample and background row; use "
            "shap.TreeExplainer (or another approximation) for models this size, select fewer "
            f"features, or raise max_features (at most {_MAX_FEATURES_CEILING}) if you can afford "
            "the cost."
        )
    return X, background, batch_size


def _call_predict(predict, Z):
    out = predict(Z)
    arr = np.asarray(out)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.shape[0] != Z.shape[0]:
        raise ValueError(
            f"predict must return one number per row: called on an array of shape {Z.shape} it "
            f"returned shape {np.shape(out)}. For a classifier or multi-output model pass a "
            "callable that returns one output, e.g. lambda Z: model.predict_proba(Z)[:, 1]."
        )
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"predict must return numbers, got dtype {arr.dtype}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("predict returned NaN or infinity on hybrid points; the model must be finite there.")
    return arr


# --------------------------------------------------------------------------------------------
# Public functions.
# --------------------------------------------------------------------------------------------


def coalition_values(predict, X, background, *, max_features=10, batch_size=65536):
    """Interventional value of every coalition: ``v[i, S] = mean_b f(x_i on S, b elsewhere)``.

    Coalitions are encoded as bit masks: column ``S`` of the result is the coalition
    ``{j : bit j of S is set}`` (feature ``j`` = column ``j`` of ``X``). Column 0 is the
    empty coalition (the base value ``E_b f(b)``) and column ``2**p - 1`` is ``f(x_i)``.

    Parameters
    ----------
    predict : callable
        Maps a float array of shape ``(k, p)`` to ``k`` outputs (shape ``(k,)`` or ``(k, 1)``),
        e.g. ``model.predict``. It is called once per batch of hybrid points.
    X : array-like of shape (n_samples, p)
        Points to explain. Finite numbers.
    background : array-like of shape (n_background, p)
        Background (reference) rows over which absent features are averaged. Finite numbers,
        same columns as ``X``.
    max_features : int, default=10
        Refuse inputs with more features than this (the cost grows as ``2**p``).
    batch_size : int, default=65536
        Number of hybrid rows passed to ``predict`` per call (memory ``batch_size * p`` floats).

    Returns
    -------
    values : ndarray of shape (n_samples, 2**p)
        The value table ``v``.

    Examples
    --------
    >>> import numpy as np
    >>> from tabular_trees.shapley import coalition_values
    >>> f = lambda Z: Z[:, 0] * Z[:, 1]
    >>> coalition_values(f, [[3.0, 5.0]], [[0.0, 0.0], [2.0, 4.0]])  # v(), v({0}), v({1}), v({0,1})
    array([[ 4.,  6.,  5., 15.]])
    """
    X, background, batch_size = _check_inputs(predict, X, background, max_features, batch_size)
    n, p = X.shape
    m = background.shape[0]
    n_coal = 1 << p
    total = n * n_coal * m
    values = np.zeros((n, n_coal), dtype=np.float64)
    buf = np.empty((min(batch_size, total), p), dtype=np.float64)
    for start in range(0, total, batch_size):
        stop = min(start + batch_size, total)
        Z = buf[: stop - start]
        fill_hybrids(X, background, start, Z)
        # predict receives a fresh copy so a model that keeps or modifies its input cannot corrupt the buffer.
        pred = _call_predict(predict, Z.copy())
        accumulate_values(pred, start, n_coal, m, values)
    return values


#: Most elementary terms an exact routine may sum (n * 2**p * terms per coalition); about
#: 10 s of compiled work. Beyond it the routines refuse instead of running for minutes or hours.
_MAX_TERMS = 2**31


def _check_values(values, pairs=False):
    values = as_float_matrix(values, "values")
    n_coal = values.shape[1]
    p = n_coal.bit_length() - 1
    if n_coal < 2 or (1 << p) != n_coal:
        raise ValueError(
            f"values must have 2**p columns (one per coalition of p >= 1 features), got {n_coal}."
        )
    per = p * (p - 1) // 2 if pairs else p
    terms = values.shape[0] * n_coal * max(per, 1)
    if terms > _MAX_TERMS:
        what = "interaction values" if pairs else "Shapley values"
        raise ValueError(
            f"values describes {values.shape[0]} game(s) of p={p} features (2**{p} coalitions): exact "
            f"{what} need {terms:.3g} terms, above the limit {_MAX_TERMS} (2**31, about 10 s). Pass fewer "
            "rows at a time or use fewer features."
        )
    return values, p


def shapley_from_coalition_values(values):
    """Exact Shapley values of the games given by a coalition value table.

    Parameters
    ----------
    values : array-like of shape (n_games, 2**p)
        ``values[i, S]`` is the worth of coalition ``S`` (bit mask) in game ``i``, as returned
        by :func:`coalition_values`.

    Returns
    -------
    phi : ndarray of shape (n_games, p)
        ``phi[i, j] = sum_{S not containing j} |S|!(p-|S|-1)!/p! (v[i, S+j] - v[i, S])``.

    Examples
    --------
    >>> from tabular_trees.shapley import shapley_from_coalition_values
    >>> shapley_from_coalition_values([[4.0, 6.0, 5.0, 15.0]])  # glove-game style check
    array([[6., 5.]])
    """
    values, p = _check_values(values)
    phi = np.zeros((values.shape[0], p), dtype=np.float64)
    shapley_kernel(values, _popcounts(p), _shapley_weights(p), phi)
    return phi


def interaction_from_coalition_values(values):
    """Exact Shapley interaction values (Lundberg et al. 2020 convention) from a value table.

    Off the diagonal, ``Phi[i, j, k] = Phi[i, k, j]`` is half the Shapley interaction index
    of the pair ``{j, k}``,

    .. math::

        \\begin{aligned}
        \\Phi_{jk} &= \\sum_{S \\subseteq N \\setminus \\{j,k\\}}
            \\frac{|S|!\\,(p-|S|-2)!}{2\\,(p-1)!} \\\\
            &\\qquad \\times \\bigl[v(S\\cup\\{j,k\\}) - v(S\\cup\\{j\\}) - v(S\\cup\\{k\\}) + v(S)\\bigr],
        \\end{aligned}

    and the diagonal is the main effect ``Phi[i, j, j] = phi[i, j] - sum_{k != j} Phi[i, j, k]``,
    so every row of the matrix sums to the Shapley value ``phi[i, j]`` and the whole matrix
    sums to ``v(N) - v(emptyset)``.

    Parameters
    ----------
    values : array-like of shape (n_games, 2**p)
        Coalition value table as returned by :func:`coalition_values`.

    Returns
    -------
    Phi : ndarray of shape (n_games, p, p)
        Symmetric interaction matrices.

    Examples
    --------
    >>> from tabular_trees.shapley import interaction_from_coalition_values
    >>> interaction_from_coalition_values([[0.0, 0.0, 0.0, 1.0]])  # v = x1 * x2 on {0, 1} inputs
    array([[[0. , 0.5],
            [0.5, 0. ]]])
    """
    values, p = _check_values(values, pairs=True)
    n = values.shape[0]
    out = np.zeros((n, p, p), dtype=np.float64)
    if p >= 2:
        interaction_kernel(values, _popcounts(p), _interaction_weights(p), out)
    phi = shapley_from_coalition_values(values)
    idx = np.arange(p)
    out[:, idx, idx] = phi - out.sum(axis=2)
    return out


def interventional_shapley(predict, X, background, *, max_features=10, batch_size=65536):
    """Exact interventional Shapley values of a black-box model, by enumerating all coalitions.

    For each row ``x`` of ``X`` the model is evaluated on every hybrid point
    ``(x_S, b_{not S})`` for all ``2**p`` coalitions ``S`` and all background rows ``b``;
    the averages ``v_x(S)`` are combined with the Shapley weights
    ``|S|!(p-|S|-1)!/p!``. This is the quantity ``shap.TreeExplainer(model, data=background,
    feature_perturbation="interventional")`` computes in polynomial time for trees, so the two
    agree to rounding error.

    Parameters
    ----------
    predict : callable
        Maps a float array of shape ``(k, p)`` to ``k`` outputs, e.g. ``model.predict``.
        For a classifier pass one output, e.g. ``lambda Z: clf.predict_proba(Z)[:, 1]``.
    X : array-like of shape (n_samples, p)
        Points to explain.
    background : array-like of shape (n_background, p)
        Background rows that define "feature absent" (typically a sample of training rows).
    max_features : int, default=10
        Refuse ``p > max_features`` with an error: the cost is ``n_samples * 2**p *
        n_background`` model evaluations.
    batch_size : int, default=65536
        Hybrid rows per ``predict`` call.

    Returns
    -------
    phi : ndarray of shape (n_samples, p)
        Shapley values; ``base_value + phi.sum(axis=1) == predict(X)`` up to rounding.
    base_value : float
        ``mean_b predict(b)`` over the background.

    Raises
    ------
    ValueError
        If ``p > max_features``, if ``background`` does not have the columns of ``X``, if an
        input is empty or not finite, or if ``predict`` does not return one finite number per row.
    TypeError
        If ``predict`` is not callable or returns non-numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from tabular_trees.shapley import interventional_shapley
    >>> f = lambda Z: Z[:, 0] * Z[:, 1]
    >>> phi, base = interventional_shapley(f, [[3.0, 5.0]], [[0.0, 0.0], [2.0, 4.0]])
    >>> phi, base
    (array([[6., 5.]]), 4.0)
    >>> bool(np.isclose(base + phi.sum(), 15.0))
    True
    """
    values = coalition_values(predict, X, background, max_features=max_features, batch_size=batch_size)
    base_values = values[:, 0]
    # v(emptyset) is the same average for every sample; read it from the first one.
    return shapley_from_coalition_values(values), float(base_values[0])


def interventional_shapley_interactions(predict, X, background, *, max_features=10, batch_size=65536):
    """Exact interventional Shapley interaction values by enumerating all coalitions.

    Same game as :func:`interventional_shapley`; the interaction matrix follows the
    convention of ``shap``'s ``shap_interaction_values`` (pair index split equally between
    the two off-diagonal cells, main effects on the diagonal, rows summing to the Shapley
    values). Note that ``shap.TreeExplainer`` computes interaction values only for
    ``feature_perturbation="tree_path_dependent"``, a different game.

    Parameters
    ----------
    predict, X, background, max_features, batch_size
        As in :func:`interventional_shapley`.

    Returns
    -------
    Phi : ndarray of shape (n_samples, p, p)
        Symmetric interaction matrices; ``Phi.sum(axis=2)`` equals the Shapley values.
    base_value : float
        ``mean_b predict(b)``.

    Examples
    --------
    >>> from tabular_trees.shapley import interventional_shapley_interactions
    >>> f = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]
    >>> Phi, base = interventional_shapley_interactions(f, [[1.0, 1.0, 1.0]], [[0.0, 0.0, 0.0]])
    >>> Phi[0]
    array([[0. , 0.5, 0. ],
           [0.5, 0. , 0. ],
           [0. , 0. , 1. ]])
    """
    values = coalition_values(predict, X, background, max_features=max_features, batch_size=batch_size)
    return interaction_from_coalition_values(values), float(values[0, 0])
