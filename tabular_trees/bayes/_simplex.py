"""Stan's stick-breaking transform between R^{K−1} and the unit simplex in R^K.

The compiled forward map and its gradient (used by the log-posterior kernels of HMC-DFI)
and their Python wrappers and inverse (used to pack and unpack trees).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .soft_tree import _sigmoid


@numba.njit(cache=True, _nrt=False)  # allocates nothing: no reference counting (see _posterior_kernels)
def _log_sigmoid(a):
    """log(1 / (1 + exp(-a))) without overflow or underflow to log(0)."""
    if a >= 0.0:
        return -math.log1p(math.exp(-a))
    return a - math.log1p(math.exp(a))


@numba.njit(cache=True, _nrt=False)  # allocates nothing: no reference counting (see _posterior_kernels)
def _stick_forward(y, x):
    """Stan's stick-breaking map R^{K-1} → simplex in R^K; returns the log-Jacobian.

    The remaining stick is carried in log space, so a far-out ``y`` (a break taking the whole
    stick) gives tiny but valid simplex entries and a finite log-Jacobian instead of log(0).
    """
    K = x.shape[0]
    log_rem = 0.0
    logj = 0.0
    for k in range(K - 1):
        a = y[k] - math.log(K - 1 - k)
        log_z = _log_sigmoid(a)
        log_1mz = _log_sigmoid(-a)
        x[k] = math.exp(log_rem + log_z)
        logj += log_z + log_1mz + log_rem
        log_rem += log_1mz
    x[K - 1] = math.exp(log_rem)
    return logj


@numba.njit(cache=True, _nrt=False)  # allocates nothing: no reference counting (see _posterior_kernels)
def _stick_backward(y, x, gx, gy, with_jac):
    """Gradient w.r.t. y of L(x(y)) [+ log-Jacobian] given gx = ∂L/∂x (length K)."""
    K = x.shape[0]
    gs = gx[K - 1]
    # log of the remaining stick before each break, a sum of log(1 - z_j) (no cancellation,
    # never negative); held in gy[k] until gy[k] is overwritten below
    log_s = 0.0
    for k in range(K - 1):
        gy[k] = log_s
        log_s += _log_sigmoid(-(y[k] - math.log(K - 1 - k)))
    for k in range(K - 2, -1, -1):
        s_k = math.exp(gy[k])
        z = _sigmoid(y[k] - math.log(K - 1 - k))
        gz = (gx[k] - gs) * s_k
        g = gz * z * (1.0 - z)
        if with_jac:
            g += 1.0 - 2.0 * z
        gy[k] = g
        gs_new = gx[k] * z + gs * (1.0 - z)
        if with_jac and k > 0:
            # d log s_k / d s_k; s_k can underflow to 0 far out in y, where a huge gradient
            # makes the sampler report a divergence instead of crashing
            gs_new += 1.0 / max(s_k, 1e-300)
        gs = gs_new



def _stick_breaking(y):
    """Map ``y`` in R^{K−1} to the unit simplex in R^K (Stan's stick-breaking transform).

    Examples
    --------
    >>> _stick_breaking(np.zeros(2)).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    x = np.zeros(y.shape[0] + 1)
    _stick_forward(y, x)
    return x


def _stick_breaking_log_jacobian(y):
    """Log absolute Jacobian determinant ``log |det ∂x_{1:K−1}/∂y|`` of ``_stick_breaking``.

    Examples
    --------
    >>> round(float(_stick_breaking_log_jacobian(np.zeros(1))), 6)  # x1 = logistic(y), J = 1/4
    -1.386294
    """
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    x = np.zeros(y.shape[0] + 1)
    return float(_stick_forward(y, x))


def _stick_breaking_inverse(x):
    """Inverse of ``_stick_breaking`` for a point strictly inside the simplex.

    Examples
    --------
    >>> _stick_breaking_inverse(_stick_breaking(np.array([0.3, -1.0]))).round(6).tolist()
    [0.3, -1.0]
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    K = x.shape[0]
    y = np.zeros(K - 1)
    rem = 1.0
    for k in range(K - 1):
        z = min(max(x[k] / rem, 1e-15), 1 - 1e-15)
        y[k] = np.log(z) - np.log1p(-z) + np.log(K - 1 - k)
        rem -= x[k]
    return y
