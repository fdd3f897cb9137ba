"""Compiled kernels never see input that could make them read or write out of bounds.

Each case below used to reach numba code unchecked (an out-of-bounds read returning numbers, or a
silent wrap-around); each now raises a ValueError naming the argument before any compiled call.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabular_trees.boosting import GradientBoostingRegressor, build_histogram
from tabular_trees.tree import CARTClassifier, CARTRegressor


def _data(p=4):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, p))
    return X, X[:, p - 1] + 0.1 * rng.normal(size=60)


@pytest.mark.parametrize("Est", [CARTRegressor, CARTClassifier])
def test_cart_tree_arrays_refuse_too_few_columns(Est):
    X, y = _data()
    est = Est(max_depth=3, random_state=0).fit(X, y if Est is CARTRegressor else (y > 0).astype(int))
    assert est.tree_.feature.max() == 3  # the tree uses the last column
    for method in (est.tree_.apply, est.tree_.predict):
        with pytest.raises(ValueError, match="X has 2 features"):
            method(X[:, :2].astype(np.float32))
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    # the right shape still works and equals the estimator's own answer
    np.testing.assert_array_equal(est.tree_.apply(X.astype(np.float32)), est.apply(X))


def test_cart_tree_refuses_corrupted_children():
    X, y = _data()
    tree = CARTRegressor(max_depth=2, random_state=0).fit(X, y).tree_
    tree.children_left = tree.children_left.copy()
    tree.children_left[0] = 10_000
    with pytest.raises(ValueError, match="node 0"):
        tree.apply(X.astype(np.float32))


def test_boosted_tree_refuses_too_few_columns():
    X, y = _data()
    model = GradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, y)
    tree = model.trees_[0][0]
    assert tree.feature.max() == 3
    for method in (tree.apply, tree.predict):
        with pytest.raises(ValueError, match="at least 4"):
            method(X[:, :2])
    np.testing.assert_allclose(tree.predict(X), model.trees_[0][0].predict(np.ascontiguousarray(X)))
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_build_histogram_refuses_codes_beyond_uint16():
    codes = np.array([[69_999], [0]], dtype=np.int64)
    with pytest.raises(ValueError, match="69999"):
        build_histogram(codes, [1.0, 1.0], [1.0, 1.0])
    # the largest supported code is counted in its own bin, not wrapped
    codes = np.array([[65_535], [0]], dtype=np.int64)
    hist = build_histogram(codes, [2.0, 1.0], [1.0, 1.0])
    assert hist.shape == (1, 65_536, 3) and hist[0, 65_535].tolist() == [2.0, 1.0, 1.0]
