"""Stan's stick-breaking transform between R^{K−1} and the unit simplex in R^K.

The compiled forward map and its gradient (used by the log-posterior kernels of HMC-DFI)
and their Python wrappers and inverse (used to pack and unpack trees).
"""

from __future__ import annotations

import math

import numba
import numpy as np



# The compiled maps allocate nothing and are compiled without reference counting (see
# ``_posterior_kernels._NO_REFCOUNT``).


@numba.njit(cache=True, _nrt=False)
def _stick_offsets(K, out):
    """``out[k] = log(K − 1 − k)`` for k < K − 1: the offsets that centre the stick-breaking map
    at the simplex's centre (constants, computed once per workspace)."""
    for k in range(K - 1):
        out[k] = math.log(K - 1 - k)


@numba.njit(cache=True, _nrt=False)
def _stick_forward(y, x, offsets, e, log_rem_before):
    """Stan's stick-breaking map R^{K-1} → simplex in R^K; returns the log-Jacobian.

    With a_k = y_k − ``offsets[k]`` (``_stick_offsets``), break k takes the fraction
    z_k = logistic(a_k) of the remaining stick. The remaining stick is carried in log space, so a
    far-out ``y`` (a break taking the whole stick) gives tiny but valid simplex entries and a
    finite log-Jacobian instead of log(0). log z_k and log(1 − z_k) share one e^{−|a_k|}, which
    is kept in ``e[k]``, with the log of the stick before break k in ``log_rem_before[k]``, for
    ``_stick_backward``.
    """
    K = x.shape[0]
    log_rem = 0.0
    logj = 0.0
    for k in range(K - 1):
        a = y[k] - offsets[k]
        if a >= 0.0:  # log z = −log1p(e^{−a}), log(1 − z) = −a − log1p(e^{−a})
            ek = math.exp(-a)
            l1p = math.log1p(ek)
            log_z = -l1p
            log_1mz = -a - l1p
        else:  # log z = a − log1p(e^{a}), log(1 − z) = −log1p(e^{a})
            ek = math.exp(a)
            l1p = math.log1p(ek)
            log_z = a - l1p
            log_1mz = -l1p
        e[k] = ek
        log_rem_before[k] = log_rem
        x[k] = math.exp(log_rem + log_z)
        logj += log_z + log_1mz + log_rem
        log_rem += log_1mz
    x[K - 1] = math.exp(log_rem)
    return logj


@numba.njit(cache=True, _nrt=False)
def _stick_backward(y, x, gx, gy, with_jac, offsets, e, log_rem_before):
    """Gradient w.r.t. y of L(x(y)) [+ log-Jacobian] given gx = ∂L/∂x (length K), from the
    intermediate values ``e`` and ``log_rem_before`` of the ``_stick_forward`` call at this y."""
    K = x.shape[0]
    gs = gx[K - 1]
    for k in range(K - 2, -1, -1):
        # s_k: the remaining stick before break k, a product of (1 − z_j) (no cancellation)
        s_k = math.exp(log_rem_before[k])
        z = 1.0 / (1.0 + e[k]) if y[k] - offsets[k] >= 0.0 else e[k] / (1.0 + e[k])
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


def _stick_forward_py(y):
    """``(x, log-Jacobian)`` of ``_stick_forward`` for a Python caller (allocates its scratch)."""
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    K = y.shape[0] + 1
    x, offsets, e, log_rem = np.zeros(K), np.zeros(K), np.zeros(K), np.zeros(K)
    _stick_offsets(K, offsets)
    return x, float(_stick_forward(y, x, offsets, e, log_rem))


def _stick_breaking(y):
    """Map ``y`` in R^{K−1} to the unit simplex in R^K (Stan's stick-breaking transform).

    Examples
    --------
    >>> _stick_breaking(np.zeros(2)).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """
    return _stick_forward_py(y)[0]


def _stick_breaking_log_jacobian(y):
    """Log absolute Jacobian determinant ``log |det ∂x_{1:K−1}/∂y|`` of ``_stick_breaking``.

    Examples
    --------
    >>> round(float(_stick_breaking_log_jacobian(np.zeros(1))), 6)  # x1 = logistic(y), J = 1/4
    -1.386294
    """
    return _stick_forward_py(y)[1]


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
