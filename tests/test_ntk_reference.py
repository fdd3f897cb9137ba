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
