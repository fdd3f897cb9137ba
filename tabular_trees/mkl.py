r"""EasyMKL: multiple kernel learning by maximising the margin distribution (Aiolli & Donini, 2015).

Follows the variant implemented in MKLpy 0.6 (no trace normalisation of the kernels). With
labels mapped to :math:`\pm1`, :math:`Y=\operatorname{diag}(y)` and

.. math:: K_\lambda = (1-\lambda)\sum_r K_r + \lambda I,

EasyMKL solves the convex quadratic programme

.. math:: \gamma^\star = \arg\min_{\gamma}\ \gamma^\top Y K_\lambda Y\gamma
          \quad\text{s.t.}\quad \gamma\ge 0,\ \sum_{i:y_i=+1}\gamma_i = 1,\ \sum_{i:y_i=-1}\gamma_i = 1,

(the squared distance between the convex hulls of the two classes in the feature space of
:math:`K_\lambda`), then sets :math:`d_r = (y\circ\gamma^\star)^\top K_r (y\circ\gamma^\star)` and
returns the weights :math:`\eta = d/\sum_r d_r`.

The QP is solved here by a pairwise (SMO-type) method on the product of the two simplices: each
step moves probability mass within one class from the coordinate with the largest gradient
among those with positive mass to the one with the smallest gradient, with an exact line search;
it stops when the largest KKT violation is below ``tol`` (relative to the kernel scale). This is
the same decomposition idea as libsvm's solver, which MKLpy uses through ``SVC(C=1e7)``; the
``solver="svc"`` option reproduces that route with scikit-learn's SVC for comparison.
"""

from __future__ import annotations

import warnings

import numpy as np

import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils import column_or_1d
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ._mkl_kernels import finite_and_max_asymmetry, smo_two_simplex
from ._validation import (
    Options,
    Real,
    as_1d_target,
    as_class_target,
    as_float_matrix,
    check_int,
    check_params,
    check_real,
    reject_missing_labels,
    require_y,
)

__all__ = ["EasyMKL", "solve_margin_qp"]


def solve_margin_qp(Kl, y_pm, *, tol=1e-10, max_iter=1_000_000):
    r"""Solve :math:`\min_\gamma \gamma^\top Y K Y \gamma` over the per-class simplices.

    Parameters
    ----------
    Kl : ndarray of shape (n, n)
        Symmetric positive semi-definite kernel (e.g. :math:`K_\lambda`).
    y_pm : ndarray of shape (n,)
        Labels in {-1, +1}, both present.
    tol : float
        Stop when the largest KKT violation (gradient gap within a class) is below
        ``tol * mean(diag(K))``.
    max_iter : int

    Returns
    -------
    gamma : ndarray of shape (n,)
    info : dict
        ``n_iter``, ``kkt_violation``, ``objective``.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.eye(4)
    >>> g, info = solve_margin_qp(K, np.array([1, 1, -1, -1]))
    >>> g.round(6).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    if np.ndim(Kl) != 2:
        raise ValueError(f"Kl must be one square kernel matrix of shape (n, n), got a {np.ndim(Kl)}-D array.")
    Kl = _check_kernels(Kl, "Kl")[0]
    n = Kl.shape[0]
    y_arr = as_1d_target(y_pm, n, "y_pm")
    if y_arr.dtype.kind not in "biuf" or not np.all(np.isin(y_arr, (-1, 1))):
        raise ValueError("y_pm must hold labels -1 and +1 only; map your two classes to -1/+1 first.")
    y_pm = y_arr.astype(np.float64)
    if np.all(y_pm == y_pm[0]):
        raise ValueError("y_pm must contain both labels -1 and +1.")
    tol = check_real(tol, "tol", min_val=0.0, include_boundaries="neither")
    max_iter = check_int(max_iter, "max_iter", min_val=1)
    return _margin_qp(Kl, y_pm, tol, max_iter)


def _margin_qp(Kl, y_pm, tol, max_iter):
    """:func:`solve_margin_qp` on validated input (float64 ``Kl``, ``y_pm`` of -1.0/+1.0 with both)."""
    Q = Kl * np.multiply.outer(y_pm, y_pm)
    cls = (y_pm > 0).astype(np.int64)
    gamma = np.where(cls == 1, 1.0 / max(1, cls.sum()), 1.0 / max(1, (1 - cls).sum()))
    scale = float(np.mean(np.abs(np.diag(Q)))) or 1.0
    n_iter, viol = smo_two_simplex(Q, cls, gamma, tol * scale, int(max_iter))
    gamma = np.clip(gamma, 0.0, None)
    for c in (0, 1):
        gamma[cls == c] /= gamma[cls == c].sum()
    return gamma, {"n_iter": int(n_iter), "kkt_violation": float(viol), "objective": float(gamma @ Q @ gamma)}


#: libsvm (behind scikit-learn's SVC) caches kernel values as float32, whose largest value is ~3.4e38;
#: the combined kernel sum_r eta_r K_r (weights summing to 1) stays below the largest |K_r| entry.
_SVC_MAX_KERNEL = 1e38


def _check_kernels(kernels, name="kernels", n_train=None):
    """Kernels as a C-contiguous float64 array of shape (R, n, m), checked for what EasyMKL needs.

    Dtype, finiteness and (for one kernel) emptiness are checked by
    :func:`~tabular_trees._validation.as_float_matrix`;
    this adds what is particular to kernels: the stack's shape, symmetry, the magnitude libsvm can
    cache and at least one non-zero kernel.
    """
    if kernels is None:
        raise TypeError(f"{name} must be an array of kernel matrices of shape (R, n, n), got None.")
    if sp.issparse(kernels):
        raise TypeError(
            f"{name} is a sparse matrix; EasyMKL needs dense kernel matrices, convert with {name}.toarray()."
        )
    try:
        arr = np.asarray(kernels)
    except ValueError:
        raise ValueError(f"{name} must be kernel matrices of one common shape (R, n, n).") from None
    if arr.ndim > 3:
        raise ValueError(f"{name} must have shape (n_kernels, n, n) or (n, n), got a {arr.ndim}-D array.")
    if arr.ndim == 3 and 0 in arr.shape:  # (an empty 2-D kernel gets scikit-learn's message below)
        raise ValueError(
            f"{name} is empty (shape {arr.shape}): 0 sample(s) or 0 feature(s); give at least one kernel on at "
            "least one sample."
        )
    if arr.ndim == 3:
        # the rows of all kernels, validated as one (R * n, m) matrix (dtype, finiteness)
        R, n, m = arr.shape
        K = as_float_matrix(arr.reshape(R * n, m), name).reshape(R, n, m)
    else:
        # a single kernel (n, m); 1-D or 0-D input gets as_float_matrix's "Reshape your data" message,
        # an empty one scikit-learn's "Found array with 0 sample(s)"
        K = as_float_matrix(kernels, name)[None]
    if n_train is None and K.shape[1] != K.shape[2]:
        raise ValueError(f"{name} must be square training kernels (R, n, n), got {K.shape}.")
    if n_train is not None and K.shape[2] != n_train:
        raise ValueError(
            f"{name}: X has {K.shape[2]} features, but EasyMKL is expecting {n_train} features as input "
            f"(test kernels have shape (R, n_test, {n_train}): one column per training sample)."
        )
    # One compiled pass instead of np.allclose(K, K.transpose(...)), which allocates several
    # temporaries of the size of the whole stack (gigabytes for a 129-kernel bank).
    finite, asymmetry, peak = finite_and_max_asymmetry(K)
    if not finite:
        raise ValueError(f"{name} contains NaN or infinity; compute the kernels from finite data.")
    if n_train is None and asymmetry > 1e-8 * max(1.0, peak):
        raise ValueError(f"{name} must be symmetric training kernels (each K_r equal to its transpose).")
    if n_train is None and peak > _SVC_MAX_KERNEL:
        raise ValueError(
            f"{name} have entries up to {peak:.3g} in magnitude, beyond {_SVC_MAX_KERNEL:.0e}: scikit-learn's SVC "
            "(libsvm) caches kernel values in single precision (float32, largest ~3.4e38), where they overflow. "
            "Rescale the kernels (e.g. divide every K_r by its largest |entry|, or standardise X before computing "
            "them); the test kernels must be rescaled by the same factors."
        )
    if n_train is None and peak == 0.0:
        # every K_r = 0: no kernel says anything about the samples, so the margin, the weights and
        # the SVC would all be arbitrary (uniform weights, a constant prediction)
        raise ValueError(
            f"{name} are all zero (every training kernel K_r is 0): they carry no information about the "
            "samples. Compute the kernels from the data (a Gram matrix K_r[i, j] = k_r(x_i, x_j)); a zero "
            "kernel can only be given beside non-zero ones."
        )
    return K


class EasyMKL(ClassifierMixin, BaseEstimator):
    r"""EasyMKL (Aiolli & Donini, 2015) as in MKLpy 0.6, for binary classification.

    **Input contract.** Unlike most estimators, EasyMKL does not take a feature matrix: it
    takes precomputed kernels. :meth:`fit` takes ``kernels`` of shape ``(R, n, n)``, one
    symmetric positive semi-definite Gram matrix ``K_r[i, j] = k_r(x_i, x_j)`` per kernel on
    the training samples (a single 2-D ``(n, n)`` array counts as ``R = 1``). :meth:`predict`
    and :meth:`decision_function` take ``(R, n_test, n)``: the same ``R`` kernels evaluated
    between test samples (rows) and the training samples (columns), in the training order.
    Kernels must be dense, finite and real, not all zero, and at most 1e38 in magnitude (scikit-learn's
    SVC caches kernel values in float32); a ``ValueError`` says which. ``y`` has exactly two classes.
    The estimator is
    tagged ``pairwise`` (scikit-learn's tag for precomputed-kernel input), so scikit-learn's
    checks feed it Gram matrices, and it passes all of them. Before :meth:`fit`, the
    prediction methods raise ``NotFittedError``.

    Parameters
    ----------
    lam : float in [0, 1], default=0.1
        Regularisation :math:`\lambda` in :math:`K_\lambda=(1-\lambda)\sum_r K_r+\lambda I`.
    solver : {"smo", "svc"}, default="smo"
        ``"smo"``: the pairwise solver :func:`solve_margin_qp` (precise, ``tol``);
        ``"svc"``: scikit-learn's ``SVC(C=1e7, kernel="precomputed")`` on :math:`K_\lambda`
        with the dual coefficients normalised per class (MKLpy's libsvm route; approximate).
    tol : float, default=1e-10
    C : float, default=1.0
        Regularisation of the SVC fitted on the combined kernel for :meth:`predict`.

    Attributes
    ----------
    weights_ : ndarray of shape (n_kernels,)
        Kernel weights :math:`\eta` (non-negative, sum to 1).
    gamma_ : ndarray of shape (n_samples,)
        Solution of the margin QP.
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is mapped to +1.
    svc_ : sklearn.svm.SVC
        Fitted on :math:`\sum_r \eta_r K_r`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
    >>> kernels = np.stack([np.outer(X[:, 0], X[:, 0]), np.outer(X[:, 1], X[:, 1])])
    >>> mkl = EasyMKL(lam=0.1).fit(kernels, y)
    >>> bool(mkl.weights_[0] > mkl.weights_[1]), round(float(mkl.weights_.sum()), 12)
    (True, 1.0)
    """

    _parameter_table = {
        "lam": Real(0.0, 1.0),
        "solver": Options("smo", "svc"),
        "tol": Real(0.0, closed="neither"),
        "C": Real(0.0, closed="neither"),
    }

    def __init__(self, lam=0.1, solver="smo", tol=1e-10, C=1.0):
        self.lam = lam
        self.solver = solver
        self.tol = tol
        self.C = C

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = True
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, kernels, y):
        """Learn the kernel weights from training kernels of shape (R, n, n) and labels ``y``.

        Parameters
        ----------
        kernels : array-like of shape (R, n, n) or (n, n)
            Training Gram matrices (see the input contract above).
        y : array-like of shape (n,)
            Two class labels of any type.

        Returns
        -------
        self
        """
        params = check_params(self)
        lam, solver, tol, C = params["lam"], params["solver"], params["tol"], params["C"]
        reject_missing_labels(require_y(self, y))
        try:
            y_type = type_of_target(y, input_name="y")
        except ValueError:
            y_type = None  # as_class_target below gives the precise message
        if y_type in ("multiclass", "multiclass-multioutput"):
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {y_type}; EasyMKL needs "
                "exactly 2 classes."
            )
        K = _check_kernels(kernels)
        n = K.shape[1]
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            y = column_or_1d(y_arr, warn=True)
        classes, codes = as_class_target(y, n)
        if classes.shape[0] != 2:
            raise ValueError(
                f"Only binary classification is supported. The type of the target is multiclass: y has "
                f"{classes.shape[0]} classes; EasyMKL needs exactly 2."
            )
        y_pm = np.where(codes == 1, 1.0, -1.0)
        Ksum = K.sum(axis=0)
        Kl = (1.0 - lam) * Ksum + lam * np.eye(n)
        if solver == "smo":
            gamma, info = _margin_qp(Kl, y_pm, tol, 1_000_000)
        else:
            if np.max(np.abs(Kl)) > _SVC_MAX_KERNEL:  # the unweighted sum of R kernels, for libsvm's float32 cache
                raise ValueError(
                    f"kernels sum to entries beyond {_SVC_MAX_KERNEL:.0e}, which overflow the float32 kernel cache of "
                    "solver='svc' (libsvm); rescale the kernels or use solver='smo'."
                )
            # libsvm with C = 1e7 may never converge on non-separable data with a tiny lam:
            # cap its iterations and report instead of hanging
            cap = 100 * n + 100_000
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                svc = SVC(C=1e7, kernel="precomputed", tol=1e-6, max_iter=cap).fit(Kl, y_pm)
            if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                raise ValueError(
                    f"solver='svc' (libsvm with C=1e7) did not converge in {cap} iterations with lam={lam!r}; "
                    "the classes overlap in the kernel's feature space. Use solver='smo' (exact) or a larger lam."
                )
            gamma = np.zeros(n)
            gamma[svc.support_] = np.abs(svc.dual_coef_.ravel())
            for c in (-1.0, 1.0):
                s = gamma[y_pm == c].sum()
                if s <= 0:
                    raise RuntimeError("SVC returned no support vector in one class; use solver='smo'.")
                gamma[y_pm == c] /= s
            Q = Kl * np.multiply.outer(y_pm, y_pm)
            info = {"n_iter": None, "kkt_violation": None, "objective": float(gamma @ Q @ gamma)}
        yg = y_pm * gamma
        d = np.einsum("i,rij,j->r", yg, K, yg)
        d = np.clip(d, 0.0, None)
        if d.sum() <= 0:
            # the class hulls touch in every kernel's feature space: no kernel is preferred
            warnings.warn(
                "every kernel gives a zero margin term d_r (the classes' convex hulls intersect in each "
                "kernel's feature space); using uniform weights.",
                ConvergenceWarning,
                stacklevel=2,
            )
            d = np.ones(K.shape[0])
        self.weights_ = d / d.sum()
        self.gamma_ = gamma
        self.solver_info_ = info
        self.classes_ = classes
        self.n_kernels_ = K.shape[0]
        self.n_features_in_ = n  # kernel columns: one per training sample
        self.svc_ = SVC(C=C, kernel="precomputed").fit(np.tensordot(self.weights_, K, 1), codes)
        return self

    def _combine(self, kernels):
        check_is_fitted(self, "weights_")
        K = _check_kernels(kernels, "kernels", n_train=self.gamma_.shape[0])
        if K.shape[0] != self.n_kernels_:
            raise ValueError(f"expected {self.n_kernels_} kernels, got {K.shape[0]}.")
        return np.tensordot(self.weights_, K, 1)

    def decision_function(self, kernels):
        """SVC decision values from test kernels of shape (R, n_test, n_train) (or (n_test, n_train) for R = 1)."""
        K = self._combine(kernels)
        return self.svc_.decision_function(K)

    def predict(self, kernels):
        """Class labels from test kernels of shape (R, n_test, n_train) (or (n_test, n_train) for R = 1)."""
        K = self._combine(kernels)
        return self.classes_[self.svc_.predict(K)]
