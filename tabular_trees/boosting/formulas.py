"""The teaching formulas of XGBoost's second-order objective: optimal leaf weight and split gain.

With ``G`` and ``H`` the sums of the loss gradients and Hessians over a leaf's rows, the
regularised objective ``sum_i L(y_i, f_i) + gamma T + lambda/2 sum_leaves w^2`` of Chen &
Guestrin (2016) gives the leaf weight ``w* = -G / (H + lambda)`` (:func:`leaf_weight`) and the
gain of replacing one leaf by two (:func:`split_gain`). The compiled tree growth of
:class:`~tabular_trees.boosting.GradientBoostingRegressor` uses the same formulas.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_finite_array, check_finite_result, check_real

__all__ = ["leaf_weight", "split_gain"]


def _same_shape(*named):
    shapes = {n: a.shape for n, a in named}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"{', '.join(shapes)} must have the same shape, got {shapes}.")


def leaf_weight(G, H, reg_lambda=1.0):
    """Optimal leaf weight ``w* = -G / (H + reg_lambda)`` of the second-order objective.

    Minimises ``G w + (H + reg_lambda) w^2 / 2``, the second-order Taylor
    expansion of the loss over a leaf's rows plus the L2 penalty
    ``reg_lambda w^2 / 2``.

    Parameters
    ----------
    G : float or array-like
        Sum of the loss gradients over the rows in the leaf.
    H : float or array-like
        Sum of the loss Hessians over the rows in the leaf (must be >= 0).
    reg_lambda : float, default=1.0
        L2 penalty on the leaf weight, >= 0. ``H + reg_lambda`` must be > 0.

    Returns
    -------
    float or ndarray
        ``-G / (H + reg_lambda)`` (without the learning rate).

    Examples
    --------
    For squared error ``g_i = f_i - y_i`` and ``h_i = 1``, so with
    ``reg_lambda=0`` the leaf weight is the mean residual:

    >>> leaf_weight(G=-6.0, H=3.0, reg_lambda=0.0)
    2.0
    >>> leaf_weight(G=-6.0, H=3.0, reg_lambda=1.0)
    1.5
    """
    lam = check_real(reg_lambda, "reg_lambda", min_val=0.0)
    G_arr = as_finite_array(G, "G")
    H_arr = as_finite_array(H, "H")
    _same_shape(("G", G_arr), ("H", H_arr))
    if np.any(H_arr < 0):
        raise ValueError("H is a sum of Hessians of a convex loss and must be >= 0.")
    if np.any(H_arr + lam <= 0):
        raise ValueError("H + reg_lambda must be > 0; use reg_lambda > 0 for empty or flat leaves.")
    with np.errstate(over="ignore"):
        out = -G_arr / (H_arr + lam)
    check_finite_result(
        out, "leaf_weight", "|G| / (H + reg_lambda) is above ~1.8e308; rescale G and H together or raise reg_lambda."
    )
    return float(out) if out.ndim == 0 else out


def split_gain(GL, HL, GR, HR, reg_lambda=1.0, gamma=0.0):
    """Gain of a split in XGBoost's regularised second-order objective.

    ``1/2 [GL^2/(HL+l) + GR^2/(HR+l) - (GL+GR)^2/(HL+HR+l)] - gamma`` with
    ``l = reg_lambda``: the decrease of the objective when one leaf is replaced
    by two at their optimal weights, minus the price ``gamma`` of one more leaf.
    A split is worth making when this is positive.

    Note: XGBoost's implementation reports (and thresholds with its ``gamma``)
    the bracket *without* the 1/2, i.e. ``2 * (split_gain + gamma)``.

    Parameters
    ----------
    GL, HL : float or array-like
        Gradient and Hessian sums of the left child.
    GR, HR : float or array-like
        Gradient and Hessian sums of the right child.
    reg_lambda : float, default=1.0
        L2 leaf penalty, >= 0.
    gamma : float, default=0.0
        Penalty per leaf, >= 0.

    Returns
    -------
    float or ndarray

    Examples
    --------
    Residuals -1, -1 on the left and +1, +1 on the right (squared error, so
    ``h = 1``), no regularisation: the gain is the drop in half the sum of
    squared residuals, ``1/2 (4/2 + 4/2 - 0) = 2``.

    >>> split_gain(2.0, 2.0, -2.0, 2.0, reg_lambda=0.0)
    2.0
    """
    lam = check_real(reg_lambda, "reg_lambda", min_val=0.0)
    gam = check_real(gamma, "gamma", min_val=0.0)
    arrs = [as_finite_array(a, n) for a, n in ((GL, "GL"), (HL, "HL"), (GR, "GR"), (HR, "HR"))]
    _same_shape(*zip(("GL", "HL", "GR", "HR"), arrs))
    GL_, HL_, GR_, HR_ = arrs
    if np.any(HL_ < 0) or np.any(HR_ < 0):
        raise ValueError("HL and HR are sums of Hessians of a convex loss and must be >= 0.")
    if np.any(HL_ + lam <= 0) or np.any(HR_ + lam <= 0):
        raise ValueError("HL + reg_lambda and HR + reg_lambda must be > 0.")
    G = GL_ + GR_
    H = HL_ + HR_
    with np.errstate(over="ignore", invalid="ignore"):
        out = 0.5 * (GL_**2 / (HL_ + lam) + GR_**2 / (HR_ + lam) - G**2 / (H + lam)) - gam
    check_finite_result(out, "split_gain", "GL and GR are too large (|G| near 1e154 or more); rescale them.")
    return float(out) if out.ndim == 0 else out
