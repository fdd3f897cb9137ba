"""The timing reference of the authors' per-kernel algorithm computes the same kernels as the library."""

import numpy as np
import pytest

from tabular_trees import ntk
from tabular_trees.ntk_reference import per_kernel_loop, per_kernel_loop_bank


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
@pytest.mark.parametrize("alpha,beta", [(0.5, 0.1), (2.0, 0.5), (4.0, 1.0)])
def test_per_kernel_loop_equals_oblivious_ntk(mode, alpha, beta):
    X = np.random.default_rng(0).normal(size=(11, 5))
    sets = ntk.all_feature_sets(5, 3) + [(1, 1), (2, 0, 2)]   # repeated features too
    bank = ntk.kernel_bank(X, feature_sets=sets, mode=mode, alpha=alpha, beta=beta)
    loop = per_kernel_loop_bank(X, sets, mode=mode, alpha=alpha, beta=beta)
    assert len(loop) == len(sets)
    for k, feats in enumerate(sets):
        # both evaluate the same closed forms in float64; only the order of the products differs
        np.testing.assert_allclose(loop[k], bank[k], rtol=1e-12, atol=1e-13, err_msg=str(feats))


def test_per_kernel_loop_rejects_bad_input():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="features"):
        per_kernel_loop(X, (2,))
    with pytest.raises(ValueError, match="features"):
        per_kernel_loop(X, ())
    with pytest.raises(ValueError, match="mode"):
        per_kernel_loop(X, (0,), mode="oblique")
    with pytest.raises(ValueError, match="alpha"):
        per_kernel_loop(X, (0,), alpha=0.0)


@pytest.mark.parametrize("bad", [("a",), None, 0, "ab", 5, (1.5,), (True,)])
def test_per_kernel_loop_names_features(bad):
    X = np.ones((3, 2))
    with pytest.raises(TypeError, match="features"):
        per_kernel_loop(X, bad)
    with pytest.raises(TypeError, match=r"feature_sets\[0\]"):
        per_kernel_loop_bank(X, [bad])


@pytest.mark.parametrize("bad", [None, 5, "ab"])
def test_per_kernel_loop_bank_names_feature_sets(bad):
    with pytest.raises(TypeError, match="feature_sets"):
        per_kernel_loop_bank(np.ones((3, 2)), bad)
    with pytest.raises(ValueError, match="feature_sets"):
        per_kernel_loop_bank(np.ones((3, 2)), [])


@pytest.mark.parametrize("mode", ["AAA", "AAI"])
@pytest.mark.parametrize("scale", [1e6, 1e20, 1e70])
def test_per_kernel_loop_accurate_at_the_scales_the_bank_accepts(mode, scale):
    # Before: the determinant in Tdot was formed by subtracting two nearly equal products, and at
    # X * 1e6 the loop was off by 4.9e-4 of max|K|; now it agrees with the bank to rounding.
    X = np.random.default_rng(0).normal(size=(20, 4)) * scale
    for feats in [(0,), (1, 3), (0, 2, 3)]:
        K = per_kernel_loop(X, feats, mode=mode)
        R = ntk.oblivious_ntk(X, features=feats, mode=mode)
        assert np.max(np.abs(K - R)) <= 1e-14 * np.max(np.abs(R))


def test_per_kernel_loop_refuses_what_the_bank_refuses():
    X = np.random.default_rng(0).normal(size=(5, 2)) * 1e80
    with pytest.raises(ValueError, match="too large") as loop_err:
        per_kernel_loop(X, (0,))
    with pytest.raises(ValueError, match="too large") as bank_err:
        ntk.kernel_bank(X, feature_sets=[(0,)])
    assert str(loop_err.value) == str(bank_err.value)
