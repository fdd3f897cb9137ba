"""Training dynamics of the linearised model under the limiting NTK (private; public in :mod:`tabular_trees.ntk`)."""

from __future__ import annotations

import numpy as np

from .._validation import as_finite_array, as_float_matrix, check_option, check_real


def ntk_trajectory(H_train, H_eval, y, *, learning_rate, steps, reduction="sum", discrete=False):
    r"""Outputs of the linearised model trained by gradient descent on the squared error.

    Starting from zero output (the initial output is subtracted), gradient flow on
    :math:`L=\tfrac12\sum_i (f(\mathbf x_i)-y_i)^2` gives (Lee et al., 2019; Kanoh & Sugiyama, 2024)

    .. math:: f(\nu, t) = H(\nu,\mathbf x)H(\mathbf x,\mathbf x)^{-1}\big(I-e^{-\eta H(\mathbf x,\mathbf x)t}\big)\mathbf y .

    With ``reduction="mean"`` (:math:`L=\tfrac1{2N}\sum_i(\cdot)^2`, the paper's Eq. 4) the rate
    is :math:`\eta/N`. With ``discrete=True`` the exponential is replaced by
    :math:`(I-\eta H)^t`, the exact linearised *discrete* gradient-descent iterate; it diverges when
    :math:`\eta\lambda_{\max}(H) > 2` (:math:`\eta\lambda_{\max}/N > 2` with ``reduction="mean"``), and
    such a ``learning_rate`` raises a ``ValueError`` that gives :math:`\lambda_{\max}` and the bound.
    Computed with an eigendecomposition of ``H_train``, as :math:`V\,\mathrm{diag}((1-e^{-\eta\lambda t})/\lambda)V^\top`
    (stable for small eigenvalues).

    Parameters
    ----------
    H_train : array-like of shape (N, N)
        Symmetric positive semi-definite kernel on the training inputs.
    H_eval : array-like of shape (m, N)
        Kernel between evaluation and training inputs.
    y : array-like of shape (N,)
    learning_rate : float > 0
    steps : array-like of float
        Times (numbers of steps) at which to evaluate.
    reduction : {"sum", "mean"}, default="sum"
    discrete : bool, default=False

    Returns
    -------
    F : ndarray of shape (len(steps), m)

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> F = ntk_trajectory(H, H, np.array([1.0, -1.0]), learning_rate=0.1, steps=[0, 10_000])
    >>> np.round(F, 6).tolist()       # starts at 0, converges to the targets on training points
    [[0.0, 0.0], [1.0, -1.0]]
    """
    H = as_float_matrix(H_train, "H_train")
    N = H.shape[0]
    if H.shape[1] != N:
        raise ValueError(f"H_train must be square, got shape {H.shape}.")
    if not np.allclose(H, H.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(H).max())):
        raise ValueError("H_train must be symmetric (a kernel matrix on the training inputs).")
    He = as_float_matrix(H_eval, "H_eval")
    if He.shape[1] != N:
        raise ValueError(f"H_eval must have {N} columns (one per training input), got {He.shape[1]}.")
    yv = as_finite_array(y, "y").ravel()
    if yv.shape[0] != N:
        raise ValueError(f"y must be a vector of length {N} (one target per training input), got {yv.shape[0]}.")
    lr = check_real(learning_rate, "learning_rate", min_val=0.0, include_boundaries="neither")
    reduction = check_option(reduction, "reduction", ("sum", "mean"))
    t = as_finite_array(steps, "steps").ravel()
    if np.any(t < 0):
        raise ValueError("steps must be non-negative (times, in steps, at which to evaluate).")
    eta = lr / N if reduction == "mean" else lr
    lam, V = np.linalg.eigh(0.5 * (H + H.T))
    scale = np.abs(lam).max() if lam.size else 1.0
    if lam.min() < -1e-8 * max(scale, 1.0):
        raise ValueError("H_train is not positive semi-definite.")
    lam = np.clip(lam, 0.0, None)
    if discrete and lam.size and eta * lam[-1] > 2.0:
        # (1 - eta lambda)^t grows without bound once eta lambda > 2: the iterates describe gradient descent
        # that diverges (and overflow to inf for large t), which is no trajectory to return
        per = "" if reduction == "sum" else f", divided by N={N} (reduction='mean'),"
        bound = 2.0 * lr / (eta * lam[-1])
        raise ValueError(
            f"discrete gradient descent diverges: learning_rate={lr!r} times lambda_max = {lam[-1]:.4g}, the "
            f"largest eigenvalue of H_train{per} is {eta * lam[-1]:.4g} > 2, so the iterates grow without bound; "
            f"use learning_rate < {bound:.4g} (2{' N' if reduction == 'mean' else ''} / lambda_max), or "
            "discrete=False for the gradient-flow limit."
        )
    Vy = V.T @ yv
    HeV = He @ V
    out = np.empty((t.shape[0], He.shape[0]))
    for k, tk in enumerate(t):
        if discrete:
            g = np.where(lam > 0, (1.0 - (1.0 - eta * lam) ** tk) / np.where(lam > 0, lam, 1.0), eta * tk)
        else:
            g = np.where(lam > 0, -np.expm1(-eta * lam * tk) / np.where(lam > 0, lam, 1.0), eta * tk)
        out[k] = HeV @ (g * Vy)
    return out
