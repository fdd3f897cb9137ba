"""Linear discriminant analysis with the pseudo-inverse of the pooled covariance (MATLAB's "pseudolinear").

The classifier that :class:`tabular_trees.dte.DTEClassifier` fits on the decision tree embedding;
public as :class:`tabular_trees.dte.PseudoLinearDiscriminantAnalysis` (this module is private).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import Real, as_class_target, check_magnitude, check_params, require_y, validate_X

__all__ = ["PseudoLinearDiscriminantAnalysis"]

#: Why ``X`` must stay below ``MAX_SQUARABLE`` for the embedding and the discriminant: above ~1e154
#: the squares overflow and the fit would silently degrade to chance.
SQUARES_X = (
    "the feature variances, leaf-mean norms and LDA covariance square X, which overflows float64 "
    "(|X| must stay below 1e150)"
)


def decision_from_scores(s):
    """scikit-learn's ``decision_function`` from per-class scores: for two classes, their difference."""
    return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s


def softmax(s):
    """Row-wise softmax of scores (shifted by the row maximum)."""
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def log_softmax(s):
    """Row-wise logarithm of :func:`softmax`."""
    s = s - s.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


class PseudoLinearDiscriminantAnalysis(ClassifierMixin, BaseEstimator):
    """Linear discriminant analysis with the pseudo-inverse of the pooled covariance.

    The semantics of MATLAB's ``fitcdiscr(..., 'DiscrimType', 'pseudolinear')``:
    empirical priors, class means, the unbiased pooled within-class covariance
    ``S = sum_i (x_i - m_{y_i})(x_i - m_{y_i})^T / (n - K)``, and the discriminant
    ``delta_k(x) = (x - xbar)^T S^+ (m_k - xbar) - (m_k - xbar)^T S^+ (m_k - xbar) / 2 + log pi_k``
    (centring at the overall mean ``xbar`` only removes class-independent terms and keeps
    the computation exact under a common shift of all rows). ``S^+`` is the Moore-Penrose
    pseudo-inverse with the default tolerance of MATLAB's and NumPy's ``pinv`` applied to
    the covariance matrix: eigenvalues ``lambda_i <= n_features * eps * lambda_max`` are
    treated as zero, so directions without (numerically resolvable) within-class
    variance are ignored rather than inverted. It is computed from the SVD of the
    scaled, within-class-centred data (singular values ``s_i = sqrt(lambda_i)``), which
    is more accurate than forming ``S``. Unlike scikit-learn's ``solver="svd"`` it does
    not standardise the features and it keeps every direction above the tolerance
    (scikit-learn drops standardised singular values below ``1e-4``); the predictions
    coincide whenever the pooled covariance is well conditioned.

    Parameters
    ----------
    tol : float or None, default=None
        Relative eigenvalue threshold of the pseudo-inverse; ``None`` uses
        ``n_features * eps``, the rule of ``pinv`` applied to the covariance matrix.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    xbar_ : ndarray of shape (n_features,)
    covariance_pinv_ : ndarray of shape (n_features, n_features)
    rank_ : int
        Rank of the pooled covariance kept by the pseudo-inverse.
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
        ``decision_function`` scores are ``X @ coef_.T + intercept_`` (for two classes,
        the difference of the two columns).
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> lda = PseudoLinearDiscriminantAnalysis().fit(X, y)
    >>> float(lda.score(X, y)) > 0.95
    True
    """

    _parameter_table = {"tol": Real(0.0, 1.0, allow_none=True)}

    def __init__(self, tol=None):
        self.tol = tol

    def fit(self, X, y):
        """Fit class means, priors and the pseudo-inverse pooled covariance.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite training features below 1e150 in magnitude (the pooled covariance squares them).
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        tol = check_params(self)["tol"]
        X, y = validate_X(self, X, require_y(self, y), preset="finite_any_order", reset=True)
        check_magnitude(X, "X", why=SQUARES_X)
        self.classes_, codes = as_class_target(y, X.shape[0], "y", min_classes=2)
        return self._fit_codes(X, codes, tol)

    def _fit_codes(self, X, codes, tol):
        """Fit on validated ``X`` and class codes ``0..K-1`` of ``classes_``; ``tol`` checked (or None)."""
        n, p = X.shape
        K = self.classes_.shape[0]
        if tol is None:
            tol = p * np.finfo(np.float64).eps
        counts = np.bincount(codes, minlength=K).astype(np.float64)
        means = np.zeros((K, p))
        np.add.at(means, codes, X)
        means /= counts[:, None]
        self.priors_ = counts / n
        self.means_ = means
        self.xbar_ = self.priors_ @ means
        Xc = (X - means[codes]) / np.sqrt(max(n - K, 1))
        _, S, Vt = np.linalg.svd(Xc, full_matrices=False)
        # eigenvalues of the pooled covariance are S**2: keep lambda_i > tol * lambda_max
        r = int(np.sum(S**2 > tol * S[0] ** 2)) if S.size and S[0] > 0 else 0
        V = Vt[:r].T
        self.covariance_pinv_ = (V / S[:r] ** 2) @ V.T
        self.rank_ = r
        M = means - self.xbar_
        self.coef_ = M @ self.covariance_pinv_
        self._intercept_centered = -0.5 * np.einsum("kj,kj->k", self.coef_, M) + np.log(self.priors_)
        self.intercept_ = self._intercept_centered - self.coef_ @ self.xbar_
        return self

    def _scores(self, X):
        """Discriminant scores of validated ``X``, one column per class."""
        return (X - self.xbar_) @ self.coef_.T + self._intercept_centered

    def _checked_scores(self, X):
        check_is_fitted(self, "coef_")
        return self._scores(validate_X(self, X, preset="finite_any_order", reset=False))

    def decision_function(self, X):
        """Discriminant scores; for two classes the log-odds of the second class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to score, with the columns of ``fit``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        return decision_from_scores(self._checked_scores(X))

    def predict_proba(self, X):
        """Posterior class probabilities (softmax of the discriminant scores).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples whose class probabilities are wanted (columns as in ``fit``).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return softmax(self._checked_scores(X))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return log_softmax(self._checked_scores(X))

    def predict(self, X):
        """Class with the largest discriminant score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self._checked_scores(X)  # first: an unfitted estimator raises NotFittedError
        return self.classes_[np.argmax(scores, axis=1)]
