"""Property tests: predictions do not depend on the units of a feature (DTE, CART) or of the target (regressors).

Truth is mathematical: a tree's partition is invariant to a positive rescaling of a feature,
DTE with ``standardize=True`` divides every feature by its standard deviation, and a regressor
that standardises ``y`` (or starts from its mean with unit Hessians and no penalty) is
equivariant under ``y -> a y + b``. Hypothesis draws the factor in 1e-3...1e4.

Tolerances. Rescaling ``x -> c x`` and dividing by ``std(c x)`` returns ``x / std(x)`` up to a
few ulps (relative 1e-15). That error passes through the linear algebra of LDA (a pseudo-inverse
whose kept eigenvalues span at most ~1e8 here), so probabilities agree to ~1e-7; we allow 1e-6.
Regressor outputs are compared relative to ``|a| * std(y)`` with 1e-6 (gradient descent runs
a few hundred float64 steps on the identical standardised problem, so the difference is rounding).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabular_trees.boosting import GradientBoostingRegressor
from tabular_trees.dte import DTEClassifier
from tabular_trees.soft_trees import SoftTreeRegressor
from tabular_trees.tree import CARTClassifier, CARTRegressor

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True)
factor = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)
shift = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)


def _mixed_scale(seed, n=300):
    """One-hot columns beside a large-valued amount: the case where raw DTE loses directions."""
    rng = np.random.default_rng(seed)
    cat = rng.integers(0, 5, n)
    amount = rng.lognormal(10.0, 0.6, n)
    age = rng.uniform(20, 70, n)
    logit = np.array([-1.2, -0.4, 0.0, 0.5, 1.3])[cat] + (np.log(amount) - 10.0) / 0.6 + 0.03 * (age - 45)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return np.column_stack([np.eye(5)[cat], amount, age]), y


def _rescaled(X, col, c):
    """A copy of ``X`` with column ``col`` multiplied by ``c``."""
    Xc = X.copy()
    Xc[:, col] *= c
    return Xc


def _regression(seed, n=80, p=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


@SETTINGS
@given(c=factor, col=st.integers(0, 6), seed=st.integers(0, 3))
def test_dte_invariant_to_rescaling_a_column(c, col, seed):
    X, y = _mixed_scale(seed)
    Xc = _rescaled(X, col, c)
    a = DTEClassifier(random_state=0).fit(X, y)
    b = DTEClassifier(random_state=0).fit(Xc, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(Xc))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(Xc), atol=1e-6)


def test_dte_raw_option_is_the_paper_map_and_loses_directions_on_mixed_scale():
    # the MATLAB-faithful option embeds raw X: Z = X W^T + ||mu||^2, exactly
    X, y = _mixed_scale(0, n=1000)
    raw = DTEClassifier(standardize=False, random_state=0).fit(X, y)
    W = raw.embedding_.leaf_means_
    np.testing.assert_allclose(raw.embedding_.transform(X), X @ W.T + (W**2).sum(1), rtol=1e-12)
    std = DTEClassifier(random_state=0).fit(X, y)
    # same tree, same leaves; only the basis of the discriminant differs
    np.testing.assert_array_equal(raw.embedding_.apply(X), std.embedding_.apply(X))
    m = raw.embedding_.n_leaves_[0]
    # raw: the amount column (~2e4) pushes the one-hot directions below pinv's tolerance
    assert raw.lda_.rank_ < std.lda_.rank_ <= min(m, X.shape[1])
    # scaled: every direction of the leaf-mean span survives except the one the one-hot block's
    # constant row sum takes out of the within-class covariance
    assert std.lda_.rank_ == np.linalg.matrix_rank(W / X.std(0)) - 1


@SETTINGS
@given(c=factor, col=st.integers(0, 2), seed=st.integers(0, 3))
def test_cart_invariant_to_rescaling_a_column(c, col, seed):
    X, y = _regression(seed)
    Xc = _rescaled(X, col, c)
    r1 = CARTRegressor(max_depth=4, random_state=0).fit(X, y)
    r2 = CARTRegressor(max_depth=4, random_state=0).fit(Xc, y)
    np.testing.assert_array_equal(r1.apply(X), r2.apply(Xc))
    np.testing.assert_array_equal(r1.predict(X), r2.predict(Xc))
    yc = (y > 0).astype(int)
    c1 = CARTClassifier(max_depth=4, random_state=0).fit(X, yc)
    c2 = CARTClassifier(max_depth=4, random_state=0).fit(Xc, yc)
    np.testing.assert_array_equal(c1.predict_proba(X), c2.predict_proba(Xc))


def _check_equivariant(make, a, b, seed):
    X, y = _regression(seed)
    p0 = make().fit(X, y).predict(X)
    p1 = make().fit(X, a * y + b).predict(X)
    scale = abs(a) * np.std(y)
    np.testing.assert_allclose((p1 - b) / scale, a * p0 / scale, atol=1e-6)


@SETTINGS
@given(a=factor, b=shift, seed=st.integers(0, 3))
def test_soft_tree_regressor_equivariant_in_y(a, b, seed):
    _check_equivariant(lambda: SoftTreeRegressor(n_trees=8, n_iter=30, random_state=0), a, b, seed)


@SETTINGS
@given(a=factor, t=st.floats(-100.0, 100.0), seed=st.integers(0, 3))
def test_cart_regressor_equivariant_in_y(a, t, seed):
    # CART equals scikit-learn's, which scores splits from running sums of y and y^2; a shift
    # of more than ~1e3 standard deviations loses the split ranking to cancellation in both
    # implementations, so the shift is drawn in units of a * std(y), up to 100
    X, y = _regression(seed)
    _check_equivariant(lambda: CARTRegressor(max_depth=3, random_state=0), a, t * a * np.std(y), seed)


@SETTINGS
@given(a=factor, b=shift, seed=st.integers(0, 3))
def test_boosting_equivariant_in_y_without_penalties(a, b, seed):
    # XGBoost's lambda and gamma are in units of y (as in xgboost): equivariance needs them at 0
    make = lambda: GradientBoostingRegressor(n_estimators=20, reg_lambda=0.0, gamma=0.0, max_depth=2)  # noqa: E731
    _check_equivariant(make, a, b, seed)


@SETTINGS
@given(b=shift, seed=st.integers(0, 3))
def test_boosting_shift_equivariant_with_default_penalties(b, seed):
    # a shift only moves base_score (the mean): gradients, hence the trees, are unchanged
    _check_equivariant(lambda: GradientBoostingRegressor(n_estimators=20, max_depth=2), 1.0, b, seed)


def test_soft_tree_regressor_offset_target_still_fits():
    # the case: y + 1000 gave R^2 = -128.7 before the intercept
    X, y = _regression(0, n=120)
    r2 = SoftTreeRegressor(random_state=0).fit(X, y + 1000).score(X, y + 1000)
    assert r2 > 0.8


def test_soft_tree_regressor_divergence_is_loud():
    X, y = _regression(0)
    with pytest.raises(ValueError, match="learning_rate"):
        SoftTreeRegressor(n_trees=4, n_iter=50, learning_rate=1e6, random_state=0).fit(X, y)
