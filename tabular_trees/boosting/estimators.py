"""The scikit-learn estimators: gradient-boosted trees for regression and classification.

Each round fits one tree (per class for more than two classes) with
:func:`~tabular_trees.boosting.boosted_tree.grow` to the gradients and Hessians of the loss at the
current predictions and adds it, shrunk by ``learning_rate``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    MAX_SQUARABLE,
    Integer,
    RandomState,
    Real,
    as_class_target,
    as_regression_target,
    check_magnitude,
    check_params,
    check_seed,
    reject_missing_labels,
    require_y,
    validate_X,
)
from ._boosting_kernels import GrowSettings
from .binning import _bin_edges, _binned
from .losses import LogisticLoss, SoftmaxLoss, SquaredError, _sigmoid, _softmax
from .boosted_tree import grow

__all__ = ["GradientBoostingRegressor", "GradientBoostingClassifier"]


class _BaseBooster(BaseEstimator):
    """What both boosters share: hyperparameters, the boosting loop, staged raw scores, importances."""

    _parameter_table = {
        "n_estimators": Integer(1),
        "learning_rate": Real(0.0, 1.0, closed="right"),
        "max_depth": Integer(1, 20),
        "reg_lambda": Real(0.0),
        "gamma": Real(0.0),
        "min_child_weight": Real(0.0),
        "max_bins": Integer(2, 65535),
        "early_stopping_rounds": Integer(1, allow_none=True),
        "validation_fraction": Real(0.0, 1.0, closed="neither", allow_none=True),
        "random_state": RandomState(),
    }

    def __init__(self, n_estimators=100, learning_rate=0.1, max_depth=3, reg_lambda=1.0, gamma=0.0,
                 min_child_weight=1.0, max_bins=255, early_stopping_rounds=None, validation_fraction=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_bins = max_bins
        self.early_stopping_rounds = early_stopping_rounds
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def fit(self, X, y, eval_set=None):
        """Fit the ensemble.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features (finite; no missing values).
        y : array-like of shape (n_samples,)
            Targets (regressor) or class labels, at least two classes (classifier).
        eval_set : tuple (X_val, y_val), optional
            Validation data for ``validation_score_`` and early stopping.

        Returns
        -------
        self
        """
        p = check_params(self)
        if p["reg_lambda"] == 0.0 and p["min_child_weight"] == 0.0:
            raise ValueError(
                "reg_lambda=0 together with min_child_weight=0 allows leaves with H = 0 and an undefined "
                "weight -G/(H + lambda); set reg_lambda > 0 or min_child_weight > 0."
            )
        X, y_enc, loss = self._training_data(X, require_y(self, y))
        X, X_val, y_enc, y_val = self._validation_data(X, y_enc, eval_set, p)
        edges = _bin_edges(X, p["max_bins"])
        binned = _binned(X, edges)
        settings = GrowSettings(p["max_depth"], p["reg_lambda"], p["gamma"], p["min_child_weight"],
                                p["learning_rate"])

        K = loss.n_outputs
        base = loss.base_score(y_enc)
        raw = np.tile(base, (X.shape[0], 1))
        raw_val = None if X_val is None else np.tile(base, (X_val.shape[0], 1))

        def _score(yy, rr):
            return loss._score(yy, rr[:, 0] if K == 1 else rr)

        trees, train_score, val_score = [], [], []
        best, best_it, since_best = np.inf, 0, 0
        for it in range(p["n_estimators"]):
            g, h = loss._gradient_hessian(y_enc, raw[:, 0] if K == 1 else raw)
            g = g.reshape(X.shape[0], K)
            h = h.reshape(X.shape[0], K)
            round_trees = []
            for k in range(K):
                rk = np.ascontiguousarray(raw[:, k])
                round_trees.append(grow(binned, np.ascontiguousarray(g[:, k]), np.ascontiguousarray(h[:, k]),
                                        settings, rk))
                raw[:, k] = rk
            trees.append(round_trees)
            train_score.append(_score(y_enc, raw))
            if raw_val is not None:
                _add_round(raw_val, X_val, round_trees)
                s = _score(y_val, raw_val)
                val_score.append(s)
                if s < best:
                    best, best_it, since_best = s, it, 0
                else:
                    since_best += 1
                if p["early_stopping_rounds"] is not None and since_best >= p["early_stopping_rounds"]:
                    break

        if p["early_stopping_rounds"] is not None:
            self.best_iteration_ = int(best_it)
            trees = trees[: best_it + 1]
        else:
            self.best_iteration_ = len(trees) - 1
        self.trees_ = trees
        self.n_estimators_ = len(trees)
        self.base_score_ = base if K > 1 else float(base[0])
        self.bin_edges_ = edges
        self.train_score_ = np.array(train_score)
        self.validation_score_ = np.array(val_score) if raw_val is not None else None
        return self

    def _validation_data(self, X, y_enc, eval_set, p):
        """``(X, X_val, y_enc, y_val)``: the training rows and the validation set (None without one)."""
        if eval_set is not None:
            if p["validation_fraction"] is not None:
                raise ValueError("Give either eval_set in fit or validation_fraction, not both.")
            if not (isinstance(eval_set, (tuple, list)) and len(eval_set) == 2):
                raise TypeError("eval_set must be a pair (X_val, y_val).")
            X_val = validate_X(self, eval_set[0], preset="finite", reset=False)
            return X, X_val, y_enc, self._encode_target(eval_set[1], X_val.shape[0], "eval_set y")
        if p["validation_fraction"] is not None:
            rng = check_seed(self.random_state)
            n_val = int(np.ceil(p["validation_fraction"] * X.shape[0]))
            if n_val < 1 or X.shape[0] - n_val < 2:
                raise ValueError(
                    f"validation_fraction={p['validation_fraction']} leaves too few rows for training and "
                    f"validation with n_samples={X.shape[0]}."
                )
            X, X_val, y_enc, y_val = train_test_split(
                X, y_enc, test_size=n_val, random_state=rng, stratify=y_enc if self._stratify else None
            )
            return np.ascontiguousarray(X), np.ascontiguousarray(X_val), y_enc, y_val
        if p["early_stopping_rounds"] is not None:
            raise ValueError(
                "early_stopping_rounds needs a validation set: pass eval_set=(X_val, y_val) to fit or set "
                "validation_fraction."
            )
        return X, None, y_enc, None

    def _raw_start(self, X):
        """Validated ``X`` and the base scores, one row per sample, before any tree."""
        check_is_fitted(self, "trees_")
        X = validate_X(self, X, preset="finite", reset=False)
        return X, np.tile(np.atleast_1d(self.base_score_), (X.shape[0], 1))

    def _raw_predict(self, X):
        X, raw = self._raw_start(X)
        for round_trees in self.trees_:
            _add_round(raw, X, round_trees)
        return raw if raw.shape[1] > 1 else raw[:, 0]

    def _staged_raw(self, X):
        X, raw = self._raw_start(X)
        for round_trees in self.trees_:
            _add_round(raw, X, round_trees)
            yield (raw if raw.shape[1] > 1 else raw[:, 0]).copy()

    @property
    def feature_importances_(self):
        """Total split gain per feature over all trees, normalised to sum to 1 (zeros if no split)."""
        check_is_fitted(self, "trees_")
        imp = np.zeros(self.n_features_in_)
        for round_trees in self.trees_:
            for tree in round_trees:
                internal = tree.feature >= 0
                np.add.at(imp, tree.feature[internal], tree.gain[internal])
        total = imp.sum()
        return imp / total if total > 0 else imp

    def apply(self, X):
        """Leaf index of every row in every tree, shape (n_samples, ``n_estimators_``, n_trees_per_round)."""
        check_is_fitted(self, "trees_")
        X = validate_X(self, X, preset="finite", reset=False)
        out = np.empty((X.shape[0], len(self.trees_), len(self.trees_[0])), dtype=np.int64)
        for t, round_trees in enumerate(self.trees_):
            for k, tree in enumerate(round_trees):
                out[:, t, k] = tree.apply(X)
        return out


def _add_round(raw, X, round_trees):
    """Add one round's trees to the raw scores, column ``k`` for the tree of output ``k``."""
    for k, tree in enumerate(round_trees):
        raw[:, k] += tree.predict(X)


class GradientBoostingRegressor(RegressorMixin, _BaseBooster):
    """Gradient-boosted trees for regression with squared error (XGBoost-style, histogram splits).

    Starting from the mean of ``y``, each round grows one depth-wise tree on
    the gradients ``g_i = f_i - y_i`` and Hessians ``h_i = 1`` of the squared
    error ``(y - f)^2 / 2``, with leaf weights :func:`leaf_weight` and split
    gains :func:`split_gain`, and adds ``learning_rate`` times it.

    Units of ``y``: shifting ``y`` only moves ``base_score_``. As in XGBoost, ``reg_lambda``
    and ``gamma`` are in units of ``y`` (gradients scale with ``y``, Hessians do not), so
    rescaling ``y`` changes their effect; with both at 0 the predictions rescale with ``y``.
    Split gains square sums of gradients, so ``fit`` refuses a ``y`` whose magnitude times the
    number of samples exceeds 1e150 (those squares would overflow float64) with a ``ValueError``
    that says to rescale ``y``.

    Parameters
    ----------
    n_estimators : int, default=100
        Maximum number of boosting rounds (trees).
    learning_rate : float, default=0.1
        Shrinkage ``eta`` in (0, 1].
    max_depth : int, default=3
        Depth of every tree (1 = stumps), 1..20. A node is split while its
        depth is below ``max_depth`` and its best gain is positive.
    reg_lambda : float, default=1.0
        L2 penalty ``lambda`` >= 0 on leaf weights.
    gamma : float, default=0.0
        Penalty per leaf ``gamma`` >= 0 in the gain (XGBoost's ``gamma`` is twice this; see module notes).
    min_child_weight : float, default=1.0
        Minimum Hessian sum in each child of a split (for squared error: rows).
    max_bins : int, default=255
        Maximum number of histogram bins per feature, 2..65535 (see :func:`compute_bin_edges`).
    early_stopping_rounds : int or None, default=None
        Stop when the validation loss has not improved for this many rounds
        and keep the trees up to the best round. Needs ``eval_set`` in
        :meth:`fit` or ``validation_fraction``.
    validation_fraction : float in (0, 1) or None, default=None
        Hold out this fraction of the training rows (drawn with
        ``random_state``) as the validation set.
    random_state : int, RandomState or None, default=None
        Seed for the validation split (the only random choice).

    Attributes
    ----------
    trees_ : list of list of BoostedTree
        ``trees_[t][0]`` is the tree of round ``t``.
    n_estimators_ : int
        Number of trees kept.
    base_score_ : float
        Initial prediction, the mean of the training targets.
    bin_edges_ : list of ndarray
        Cuts per feature.
    train_score_ : ndarray
        Training MSE after each round (``train_score_[t]`` = with ``t + 1`` trees).
    validation_score_ : ndarray or None
        Validation MSE after each round, if a validation set was given.
    best_iteration_ : int
        0-based round with the lowest validation loss under early stopping,
        otherwise the last round.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    feature_importances_ : ndarray of shape (n_features,)
        Total gain of the splits on each feature, normalised to sum to 1.

    Examples
    --------
    >>> from tabular_trees.datasets import make_sine
    >>> X, y = make_sine(200, random_state=0)
    >>> model = GradientBoostingRegressor(n_estimators=50, max_depth=2, random_state=0).fit(X, y)
    >>> model.score(X, y) > 0.8
    True
    """

    _stratify = False

    def _training_data(self, X, y):
        X, y = validate_X(self, X, y, preset="finite_fit2", reset=True, y_numeric=True)
        return X, self._encode_target(y, X.shape[0], "y"), SquaredError()

    def _encode_target(self, y, n, name):
        """``y`` as finite float64 whose squared-error arithmetic cannot overflow (else a ValueError naming it).

        A node's gradient sum ``G`` is at most ``n_samples * 2 max|y|`` and the split gain squares it
        (``G^2 / (H + lambda)``), the training loss squares residuals: with ``n_samples * max|y|`` at
        most 1e150 every such square stays below ~4e300 < 1.8e308. Ordinary targets are far below.
        """
        y = as_regression_target(y, n, name=name)
        return check_magnitude(
            y, name, limit=MAX_SQUARABLE / n,
            why=f"with {n} samples the split gains square sums of gradients of this size, which overflow "
                "float64 (n_samples * max|y| must stay below 1e150)",
            fix=f"rescale {name} (e.g. divide it by its standard deviation) and multiply the predictions back",
        )

    def predict(self, X):
        """Predicted values, shape (n_samples,)."""
        return self._raw_predict(X)

    def staged_predict(self, X):
        """Yield the predictions after each round (1, 2, ..., ``n_estimators_`` trees)."""
        yield from self._staged_raw(X)


class GradientBoostingClassifier(ClassifierMixin, _BaseBooster):
    """Gradient-boosted trees for classification (binary log-loss, multiclass softmax).

    Binary: one tree per round on the log-odds with :class:`LogisticLoss`,
    starting from the log-odds of the class prior. More than two classes: one
    tree per class and round on the softmax cross-entropy (:class:`SoftmaxLoss`),
    starting from the log class frequencies. Parameters are those of
    :class:`GradientBoostingRegressor`; the validation split of
    ``validation_fraction`` is stratified.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    trees_ : list of list of BoostedTree
        ``trees_[t][k]``: tree of round ``t`` for class ``k`` (one per round if binary).
    base_score_ : float or ndarray
        Initial raw score(s).
    train_score_, validation_score_ : ndarray
        Mean log-loss after each round.
    best_iteration_, n_estimators_, bin_edges_, n_features_in_, feature_importances_
        As in :class:`GradientBoostingRegressor`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GradientBoostingClassifier(n_estimators=30, max_depth=2).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _stratify = True

    def _training_data(self, X, y):
        reject_missing_labels(y)
        X, y = validate_X(self, X, y, preset="finite_fit2", reset=True)
        check_classification_targets(y)
        classes, codes = as_class_target(y, X.shape[0])
        self.classes_ = classes
        return X, codes, LogisticLoss() if classes.shape[0] == 2 else SoftmaxLoss(classes.shape[0])

    def _encode_target(self, y, n, name):
        """Class codes of the labels ``y`` (``name`` in errors), each one of the training classes."""
        arr = np.asarray(y)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise ValueError(f"{name} must be 1-D with {n} labels.")
        idx = np.searchsorted(self.classes_, arr)
        idx = np.clip(idx, 0, self.classes_.shape[0] - 1)
        if not np.all(self.classes_[idx] == arr):
            raise ValueError(f"{name} contains labels that are not in the training classes.")
        return idx.astype(np.int64)

    def decision_function(self, X):
        """Raw scores: log-odds (binary, shape (n,)) or per-class scores (n, K)."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes)."""
        return self._proba(self._raw_predict(X))

    def _proba(self, raw):
        if raw.ndim == 1:
            p = _sigmoid(raw)
            return np.column_stack([1.0 - p, p])
        return _softmax(raw)

    def predict(self, X):
        """Most probable class label."""
        check_is_fitted(self, "trees_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def staged_predict_proba(self, X):
        """Yield class probabilities after each round."""
        for raw in self._staged_raw(X):
            yield self._proba(raw)

    def staged_predict(self, X):
        """Yield predicted labels after each round."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
