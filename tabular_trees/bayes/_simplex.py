"""Stan's stick-breaking transform between R^{K−1} and the unit simplex in R^K: Python wrappers and the inverse
(used to pack and unpack trees). The compiled forward map and its gradient live with the log-posterior kernels
of HMC-DFI that use them (``_posterior_kernels``)."""

from __future__ import annotations

import numpy as np

from ._posterior_kernels import _stick_forward, _stick_offsets


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
