"""The losses a booster fits: squared error, binary log-loss and the multiclass softmax cross-entropy.

Each loss gives per-sample gradients ``g`` and Hessians ``h`` of the loss in the raw score ``f``
(what a boosting round fits a tree to), the base score (the best constant before the first tree)
and the mean loss that ``train_score_`` records.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_finite_array, check_int

__all__ = ["SquaredError", "LogisticLoss", "SoftmaxLoss"]

_HESS_FLOOR = 1e-16  # as in XGBoost: keeps H + lambda > 0 when lambda = 0 and p saturates

#: Clip for class frequencies in the base scores: a class absent from y would give log(0) = -inf.
#: 1e-15 is below every frequency 1/n_samples of a present class for n_samples < 1e15.
_PROB_CLIP = 1e-15


def _class_codes(y, n_outputs):
    """Check that a validated ``y`` holds class codes 0..n_outputs-1 (for ``n_outputs > 1``)."""
    if n_outputs > 1 and (np.any(y != np.round(y)) or np.any(y < 0) or np.any(y >= n_outputs)):
        raise ValueError(f"y must hold class codes 0..{n_outputs - 1} (integers), got other values.")
    return y


def _target(y, n_outputs=1):
    """A base score's ``y``: a finite, non-empty 1-D float array (class codes for ``n_outputs > 1``)."""
    return _class_codes(as_finite_array(y, "y", ndim=1, allow_empty=False), n_outputs)


# Each loss has the public, validating methods ``loss``, ``gradient_hessian`` and ``score`` and
# the formulas behind them, ``_loss``, ``_gradient_hessian`` and ``_score``, which the boosting
# loop calls on its own targets and scores (validated once, at fit) every round.
def _y_raw(y, raw, n_outputs=1):
    """Validate a loss method's ``y`` (targets / class codes) and ``raw`` (scores) before the formulas."""
    y = as_finite_array(y, "y", ndim=1)
    raw = as_finite_array(raw, "raw", ndim=1 if n_outputs == 1 else 2)
    if raw.shape[0] != y.shape[0] or (n_outputs > 1 and raw.shape[1] != n_outputs):
        want = f"({y.shape[0]},)" if n_outputs == 1 else f"({y.shape[0]}, {n_outputs})"
        raise ValueError(f"raw must have shape {want} to match y, got {raw.shape}.")
    return _class_codes(y, n_outputs), raw


class SquaredError:
    """Squared error ``L(y, f) = (y - f)^2 / 2``: ``g = f - y``, ``h = 1``.

    The base score (the constant prediction before the first tree) is the
    mean of ``y``, the minimiser of the loss over constants.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = SquaredError().gradient_hessian(np.array([1.0, 2.0]), np.array([0.5, 0.5]))
    >>> g.tolist(), h.tolist()
    ([-0.5, -1.5], [1.0, 1.0])
    """

    n_outputs = 1

    def loss(self, y, raw):
        """Per-sample loss ``(y - f)^2 / 2``."""
        y, raw = _y_raw(y, raw)
        return 0.5 * (y - raw) ** 2

    def gradient_hessian(self, y, raw):
        """First and second derivative of the loss in ``f`` (per sample)."""
        return self._gradient_hessian(*_y_raw(y, raw))

    def _gradient_hessian(self, y, raw):
        g = raw - y
        return g, np.ones_like(g)

    def base_score(self, y):
        """Mean of ``y``."""
        return np.array([float(np.mean(_target(y)))])

    def score(self, y, raw):
        """Mean squared error (what ``train_score_`` records)."""
        return self._score(*_y_raw(y, raw))

    def _score(self, y, raw):
        return float(np.mean((y - raw) ** 2))


class LogisticLoss:
    """Binary log-loss on the log-odds ``f``: ``L = log(1 + e^f) - y f`` with ``y`` in {0, 1}.

    ``g = sigma(f) - y`` and ``h = sigma(f) (1 - sigma(f))`` (floored at 1e-16
    like XGBoost). The base score is the log-odds of the class prior,
    ``log(p / (1 - p))`` with ``p = mean(y)`` clipped to ``[1e-15, 1 - 1e-15]`` (scikit-learn's
    binomial loss clips likewise), so a ``y`` of one class gives a finite base score of about
    ``-34.5`` (all 0) or ``+34.5`` (all 1) instead of infinity.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = LogisticLoss().gradient_hessian(np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    >>> g.tolist(), h.tolist()
    ([-0.5, 0.5], [0.25, 0.25])
    """

    n_outputs = 1

    def loss(self, y, raw):
        """Per-sample log-loss ``log(1 + exp(f)) - y f`` (computed stably)."""
        return self._loss(*_y_raw(y, raw))

    def _loss(self, y, raw):
        return np.logaddexp(0.0, raw) - y * raw

    def gradient_hessian(self, y, raw):
        """``g = sigma(f) - y``, ``h = max(sigma(f)(1 - sigma(f)), 1e-16)``."""
        return self._gradient_hessian(*_y_raw(y, raw))

    def _gradient_hessian(self, y, raw):
        p = _sigmoid(raw)
        return p - y, np.maximum(p * (1.0 - p), _HESS_FLOOR)

    def base_score(self, y):
        """Log-odds of the positive-class frequency, clipped to ``[1e-15, 1 - 1e-15]`` (finite for one class)."""
        p = float(np.mean(_target(y)))
        # p strictly inside (0, 1) (both classes present) is returned unchanged, bit for bit
        p = min(max(p, _PROB_CLIP), 1.0 - _PROB_CLIP)
        return np.array([np.log(p / (1.0 - p))])

    def score(self, y, raw):
        """Mean log-loss."""
        return self._score(*_y_raw(y, raw))

    def _score(self, y, raw):
        return float(np.mean(self._loss(y, raw)))


class SoftmaxLoss:
    """Multiclass cross-entropy on K raw scores: ``L = logsumexp(f) - f_y``.

    Per class ``g_k = p_k - [y = k]`` and the diagonal Hessian
    ``h_k = p_k (1 - p_k)`` (XGBoost uses ``2 p_k (1 - p_k)``). The base score
    is ``log`` of the class frequencies, a frequency of 0 (a class absent from ``y``) clipped to
    ``1e-15`` (scikit-learn's multinomial loss clips likewise): about ``-34.5``, finite. One tree
    per class and round.

    Parameters
    ----------
    n_classes : int
        Number of classes K >= 2; ``y`` holds class codes 0..K-1.

    Examples
    --------
    >>> import numpy as np
    >>> g, h = SoftmaxLoss(3).gradient_hessian(np.array([0]), np.zeros((1, 3)))
    >>> np.round(g, 3).tolist()
    [[-0.667, 0.333, 0.333]]
    """

    def __init__(self, n_classes):
        self.n_outputs = check_int(n_classes, "n_classes", min_val=2)

    def loss(self, y, raw):
        """Per-sample cross-entropy."""
        return self._loss(*_y_raw(y, raw, self.n_outputs))

    def _loss(self, y, raw):
        m = raw.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(raw - m).sum(axis=1))
        return lse - raw[np.arange(raw.shape[0]), np.asarray(y, dtype=np.int64)]

    def gradient_hessian(self, y, raw):
        """Per-class gradients and diagonal Hessians, each of shape (n, K)."""
        return self._gradient_hessian(*_y_raw(y, raw, self.n_outputs))

    def _gradient_hessian(self, y, raw):
        p = _softmax(raw)
        onehot = np.zeros_like(p)
        onehot[np.arange(p.shape[0]), np.asarray(y, dtype=np.int64)] = 1.0
        return p - onehot, np.maximum(p * (1.0 - p), _HESS_FLOOR)

    def base_score(self, y):
        """Log class frequencies (a class absent from ``y`` clipped at frequency 1e-15)."""
        counts = np.bincount(np.asarray(_target(y, self.n_outputs), dtype=np.int64), minlength=self.n_outputs)
        # frequencies of present classes (>= 1 / n_samples) are unchanged, bit for bit
        return np.log(np.maximum(counts / counts.sum(), _PROB_CLIP))

    def score(self, y, raw):
        """Mean cross-entropy."""
        return self._score(*_y_raw(y, raw, self.n_outputs))

    def _score(self, y, raw):
        return float(np.mean(self._loss(y, raw)))


def _sigmoid(z):
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
