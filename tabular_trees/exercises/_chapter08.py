"""Checkable exercises of chapter 8, "Soft trees and the NTK of axis-aligned ensembles".

The reference answers are computed here when a student first checks, with the library's public kernels
(``tabular_trees.ntk``, numpy and scipy) and, inside the functions only, the tic-tac-toe boards and the MPEA
data of ``tabular_trees.datasets``. Every reference takes at most a few seconds.
"""

from __future__ import annotations

import math

import numpy as np

from ._core import exact_integers, numeric_exercise
from ._references import rmse


# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "8.1": ("architecture A splits on feature 0 at both depths: through which products of coordinates "
            "does its AAA kernel see the inputs, and does swapping them keep those?",
            "test each of the three maps (flip x0, flip x1, swap) separately and count those "
            "that leave the kernel unchanged."),
    "8.2": ("keep the exact fractions: each leaf at depth D contributes 2**-D.",
            "list the five root-to-leaf paths, give each the weight 2**-D (D = its length) and add the weights of "
            "paths with the same set of features; answer in the order {0, 1}, {0, 1, 2}, {0, 2}."),
    "8.3": ("keep more digits of the largest eigenvalue.",
            "with the mean squared error one step multiplies the error along an eigenvector by "
            "1 - eta * lambda / N; it grows once that factor is below -1."),
    "8.4": ("average over the 129 * 128 pairs with r != s only, and keep more digits.",
            "use the first 100 boards of make_tic_tac_toe(standardize=True), alpha = 2, beta = 0.5; "
            "divide each kernel matrix by its Frobenius norm and average the Frobenius inner products of "
            "different kernels; answer [AAA, AAI]."),
    "8.5": ("check the scheme (AAA), the number of steps (10 000) and the learning rate (0.1, reduction='mean').",
            "standardise VEC and delta with a StandardScaler fitted on the 300 training alloys, "
            "subtract the training mean hardness before ntk.ntk_trajectory and add it back."),
    "8.6": ("count the constant function, the centred effects of single squares and the interactions of pairs, "
            "each once.",
            "a function of one square with three values is a constant plus a centred part of dimension 2; "
            "an interaction of two squares has dimension 2 x 2."),
}


# 8.1 ------------------------------------------------------------------------------------------------------
# An integer: right only when exact; one map off is "close".
@numeric_exercise("8.1", "understand",
                  "how many of three orthogonal maps leave architecture A's AAA kernel unchanged",
                  expects="an integer between 0 and 3", **exact_integers(close_by=1), hints=_HINTS)
def _symmetries_of_architecture_a():
    from .. import ntk

    X = np.random.default_rng(7).normal(size=(5, 2))
    maps = (np.diag([-1.0, 1.0]), np.diag([1.0, -1.0]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    K = ntk.oblivious_ntk(X, features=(0, 0), mode="AAA")
    return sum(bool(np.allclose(K, ntk.oblivious_ntk(X @ P.T, features=(0, 0), mode="AAA"))) for P in maps)


# 8.2 ------------------------------------------------------------------------------------------------------
# Exact sums of powers of 1/2: any correct computation agrees to rounding (rtol 1e-9). Within 0.02
# absolute is "close" (an answer rounded to one digit); a missed leaf changes a proportion by 1/8 or more.
@numeric_exercise("8.2", "apply", "oblivious proportions of an irregular tree (Proposition 4.1)",
                  expects="three numbers [{0, 1}, {0, 1, 2}, {0, 2}]",
                  rtol=1e-9, close_rtol=1e-6, atol=1e-9, close_atol=0.02, hints=_HINTS)
def _conversion_proportions():
    from .. import ntk

    conv = dict((feats, w) for w, feats in ntk.to_oblivious(ntk.tree_paths((0, (1, None, None),
                                                                            (2, (1, None, None), None)))))
    return np.array([conv[(0, 1)], conv[(0, 1, 2)], conv[(0, 2)]])


# 8.3 ------------------------------------------------------------------------------------------------------
# An eigenvalue of a 10 x 10 closed-form kernel: another BLAS kernel changes only the last bits (rtol 1e-6).
# Within 3 % is "close" (a rounded answer); forgetting the factor 2 or the 1/N of the mean loss is far off.
@numeric_exercise("8.3", "apply", "learning rate above which discrete gradient descent diverges (Fig. 3, AAA)",
                  expects="a learning rate (a positive number)", rtol=1e-6, close_rtol=0.03, hints=_HINTS)
def _divergence_learning_rate():
    from .. import ntk
    from ..soft_trees import perfect_tree

    X_train = np.random.default_rng(0).standard_normal((10, 2))      # the chapter's Fig. 3 training inputs
    H = ntk.axis_aligned_ntk(X_train, paths=ntk.tree_paths(perfect_tree((0, 1))), mode="AAA",
                             alpha=2.0, beta=0.5)
    return 2 * X_train.shape[0] / np.linalg.eigvalsh(H).max()


# 8.4 ------------------------------------------------------------------------------------------------------
# Means of cosines between fixed closed-form matrices: another BLAS kernel or summation order changes only
# the last bits (rtol 1e-6). Within 3 % is "close": it catches averaging over all pairs including r = s
# (about 0.3 % higher for AAA) and rounded answers.
@numeric_exercise("8.4", "extend", "mean alignment of the 129 tic-tac-toe kernels under AAA and AAI",
                  expects="two numbers [AAA, AAI] between 0 and 1", rtol=1e-6, close_rtol=0.03, hints=_HINTS)
def _mean_kernel_alignment():
    from .. import ntk
    from ..datasets import make_tic_tac_toe

    X, _ = make_tic_tac_toe(standardize=True)
    sets = ntk.all_feature_sets(X.shape[1], max_size=3)
    out = []
    for mode in ("AAA", "AAI"):
        B = ntk.kernel_bank(X[:100], feature_sets=sets, mode=mode, alpha=2.0, beta=0.5).reshape(len(sets), -1)
        B /= np.linalg.norm(B, axis=1, keepdims=True)
        A = B @ B.T
        out.append((A.sum() - np.trace(A)) / (len(sets) * (len(sets) - 1)))
    return np.array(out)


# 8.5 ------------------------------------------------------------------------------------------------------
# An eigendecomposition of a 300 x 300 kernel with near-zero eigenvalues (duplicate alloys): the trajectory
# formula is stable there, but another BLAS kernel may move the last digits a little more (rtol 1e-4).
# Within 3 % is "close": AAI instead of AAA gives about 1 % less; 1000 instead of 10 000 steps about 5 % more.
@numeric_exercise("8.5", "extend", "test RMSE of an infinite AAA ensemble on the MPEA hardness data",
                  expects="a root-mean-square error in HV", rtol=1e-4, close_rtol=0.03, hints=_HINTS)
def _mpea_ntk_rmse():
    from sklearn.preprocessing import StandardScaler

    from .. import ntk
    from ..datasets import load_mpea
    from ..soft_trees import perfect_tree

    X, y = load_mpea(target="hardness")
    Z, y = X[["VEC", "delta"]].to_numpy(dtype=float), y.to_numpy(dtype=float)
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[:300], perm[300:]
    scaler = StandardScaler().fit(Z[train])
    Z_train, Z_test = scaler.transform(Z[train]), scaler.transform(Z[test])
    paths = ntk.tree_paths(perfect_tree((0, 1)))
    H = ntk.axis_aligned_ntk(Z_train, paths=paths, mode="AAA", alpha=2.0, beta=0.5)
    H_eval = ntk.axis_aligned_ntk(Z_test, Z_train, paths=paths, mode="AAA", alpha=2.0, beta=0.5)
    offset = y[train].mean()
    pred = offset + ntk.ntk_trajectory(H, H_eval, y[train] - offset, learning_rate=0.1, steps=[10_000],
                                       reduction="mean")[0]
    return rmse(y[test], pred)


# 8.6 ------------------------------------------------------------------------------------------------------
# An integer from a counting argument: right only when exact (atol 0.5); within 5 % is "close" (for
# example forgetting the constant function); counting non-centred functions gives more than twice as much.
@numeric_exercise("8.6", "understand", "rank bound of pairwise AAA kernels on a 4 x 4 board",
                  expects="an integer (a rank)", rtol=0.0, close_rtol=0.05, atol=0.5, hints=_HINTS)
def _rank_bound_4x4():
    n_squares, n_values = 16, 3
    per_square = n_values - 1                       # centred functions of one square
    return 1 + n_squares * per_square + math.comb(n_squares, 2) * per_square**2


