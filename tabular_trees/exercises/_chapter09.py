"""Checkable exercises of chapter 9, "Decision tree embedding".

The reference answers are computed here when a student first checks, with numpy, scikit-learn, the library's
``tabular_trees.dte`` and, inside the functions only, pandas and the MPEA data of
``tabular_trees.datasets.load_mpea``; the one option answer is stored as a salted digest. Every reference takes
at most a few seconds.
"""

from __future__ import annotations

import functools

import numpy as np

from ._core import exact_integers, numeric_exercise, word_exercise
from ._references import single_thread


# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "9.1": ("almost: use the paper's sign, b_j = +||mu_j||^2, and exact squared Euclidean distances to the leaf means.",
            "count the flowers on which np.argmax(X @ W.T + (W**2).sum(axis=1)) differs from the index of the nearest "
            "leaf mean (disagreements, not agreements), with W = DecisionTreeEmbedding(random_state=0).fit(X, y)"
            ".leaf_means_ on all 150 flowers."),
    "9.3": ("count the trees of DTE-t (t = 1, 2, ...) and stop at the first t with rank W = 13.",
            "one tree with m leaves adds at most m directions to the span; grow "
            "DTEClassifier(n_trees=t, random_state=0) on the standardised training fold and compute "
            "np.linalg.matrix_rank(clf.embedding_.leaf_means_)."),
    "9.4": ("compute it exactly: the share is the length of an interval.",
            "the points that violate the condition lie between the split a and the midpoint of the two leaf means."),
    "9.5": ("use DTEClassifier(random_state=0) with the chapter's settings on all 691 alloys, "
            "with the processing route one-hot encoded as in the chapter.",
            "answer [m, rank W]: m is clf.embedding_.n_leaves_.sum(), the rank is "
            "np.linalg.matrix_rank(clf.embedding_.leaf_means_)."),
    "9.6": ("standardise with the training fold's mean and standard deviation (a constant column keeps sd 1), "
            "and take as many components as rank W of that fold's tree.",
            "answer [DTE-1 error, PCA + LDA error] in percent, counting the misclassified alloys over the five "
            "folds of StratifiedKFold(5, shuffle=True, random_state=0)."),
    "9.7": ("compare LDA with DTE-1 row by row and count a data set when LDA's error is at most DTE-1's plus 0.5.",
            "read load_recorded_run(\"dte\")[\"table\"][name][method][\"error_mean\"] for method \"LDA\" and \"DTE-1\" "
            "on each of the six data sets."),
}


@functools.lru_cache(maxsize=1)
def _mpea_phase():
    """``(X, y)`` of the MPEA phase data with the processing route one-hot encoded, as chapter 9 builds them."""
    import pandas as pd

    from ..datasets import load_mpea

    X, y = load_mpea(target="phase")
    X = pd.get_dummies(X, columns=["processing"], dtype=float)
    return X.to_numpy(dtype=np.float64), np.asarray(y, dtype=str)


# 9.1 ------------------------------------------------------------------------------------------------------
# An integer from a deterministic fit (fixed seed, the full iris data): right only when exact; within two is
# "close" (a flower or two on a boundary counted differently). Counting agreements (150 minus the answer) or
# answering the intercept factor -1/2 is "wrong", and the wrong hint says what to count.
@numeric_exercise("9.1", "apply", "iris flowers whose largest coordinate under the paper's intercept is not the "
                  "nearest leaf mean", expects="an integer (a number of flowers)", **exact_integers(close_by=2),
                  hints=_HINTS)
@single_thread
def _paper_intercept_misses():
    from sklearn.datasets import load_iris

    from ..dte import DecisionTreeEmbedding

    X, y = load_iris(return_X_y=True)
    W = DecisionTreeEmbedding(random_state=0).fit(X, y).leaf_means_
    nearest = np.argmin(((X[:, None, :] - W[None, :, :]) ** 2).sum(axis=2), axis=1)
    largest = np.argmax(X @ W.T + (W**2).sum(axis=1), axis=1)      # the paper's b_j = +||mu_j||^2
    return int(np.sum(largest != nearest))


# 9.2 ------------------------------------------------------------------------------------------------------
word_exercise("9.2", "understand", "which change can alter the predictions of DTE + LDA",
              expects='one of "intercept", "shift", "both", "neither"',
              options=("intercept", "shift", "both", "neither"),
              right="687912c7639d824a349b0d56ac1a2a51d2257fd2f83199effc865c9f1b92b06e",
              close={"2ba74e82ddf9507b768d9c8ed34adf936c4efa11666b21b289e9652468ced96e":
                     "write the difference of two discriminants with z = Wx + b: does b survive it?",
                     "dd2c860a655ed855fb613b842d51f9b956706ddf5c9957af25317789a1f26943":
                     "a shift before the tree moves every leaf mean by c: is the span of the leaf means still the "
                     "same subspace?"},
              hint_wrong="LDA sees only differences of discriminants; ask what each change does to the matrix W.")


# 9.3 ------------------------------------------------------------------------------------------------------
# An integer from a deterministic fit (fixed seeds, exact rank of well-conditioned standardised leaf means):
# right only when exact; one tree off is "close", e.g. an off-by-one loop.
@numeric_exercise("9.3", "apply", "number of wine trees whose leaf means span all 13 dimensions",
                  expects="an integer (a number of trees t)", **exact_integers(close_by=1), hints=_HINTS)
@single_thread
def _wine_full_rank_trees():
    from sklearn.datasets import load_wine
    from sklearn.model_selection import StratifiedKFold

    from ..dte import DTEClassifier

    X, y = load_wine(return_X_y=True)
    tr, _ = next(StratifiedKFold(5, shuffle=True, random_state=1).split(X, y))
    Xs = (X[tr] - X[tr].mean(0)) / X[tr].std(0)
    for t in range(1, 21):
        W = DTEClassifier(n_trees=t, random_state=0).fit(Xs, y[tr]).embedding_.leaf_means_
        if np.linalg.matrix_rank(W) == X.shape[1]:
            return t
    raise RuntimeError("the leaf means of 20 trees do not span the feature space")


# 9.4 ------------------------------------------------------------------------------------------------------
# An exact rational number (rtol 1e-6 allows a float computation). Within 10 % is "close": a Monte-Carlo
# estimate with a few thousand points lands there.
@numeric_exercise("9.4", "apply", "share of [0, 1] that violates the Voronoi condition for a split at 0.3",
                  expects="a number between 0 and 1", rtol=1e-6, close_rtol=0.1, hints=_HINTS)
def _voronoi_violation(a=0.3):
    midpoint = (a / 2 + (1 + a) / 2) / 2          # between the leaf means a/2 and (1 + a)/2
    return abs(midpoint - a)                      # X is uniform on [0, 1]: a length is a probability


# 9.5 ------------------------------------------------------------------------------------------------------
# Integers from a deterministic fit (fixed seed, fixed table): right only when exact; within two of each is
# "close" (for example a tree grown without leaf merging or on differently encoded features).
@numeric_exercise("9.5", "apply", "leaves and rank of W of one tree on the MPEA phase data",
                  expects="two numbers [m, rank W]", **exact_integers(close_by=2), hints=_HINTS)
@single_thread
def _mpea_leaves_and_rank():
    from ..dte import DTEClassifier

    X, y = _mpea_phase()
    W = DTEClassifier(random_state=0).fit(X, y).embedding_.leaf_means_
    return np.array([W.shape[0], np.linalg.matrix_rank(W)], dtype=float)


# 9.6 ------------------------------------------------------------------------------------------------------
# Cross-validated errors in %: another BLAS kernel may flip a prediction that sits on a class boundary, so two
# flipped predictions of 691 (0.3 percentage points) are still right. Within 1.5 points is "close" (for
# example principal components of unstandardised features, or another number of components).
@numeric_exercise("9.6", "extend", "DTE-1 against LDA on as many principal components (MPEA phase)",
                  expects="two numbers [DTE-1 error, PCA + LDA error] in %",
                  rtol=0.0, close_rtol=0.02, atol=0.3, close_atol=1.0, hints=_HINTS)
@single_thread
def _dte_against_pca_lda():
    from sklearn.decomposition import PCA
    from sklearn.model_selection import StratifiedKFold

    from ..dte import DTEClassifier, PseudoLinearDiscriminantAnalysis

    X, y = _mpea_phase()
    wrong_dte = wrong_pca = 0
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        dte = DTEClassifier(random_state=0).fit(X[tr], y[tr])
        wrong_dte += np.sum(dte.predict(X[te]) != y[te])
        r = np.linalg.matrix_rank(dte.embedding_.leaf_means_)
        mu, sd = X[tr].mean(0), X[tr].std(0)
        sd[sd == 0] = 1.0
        pca = PCA(n_components=r, svd_solver="full").fit((X[tr] - mu) / sd)
        lda = PseudoLinearDiscriminantAnalysis().fit(pca.transform((X[tr] - mu) / sd), y[tr])
        wrong_pca += np.sum(lda.predict(pca.transform((X[te] - mu) / sd)) != y[te])
    return 100 * np.array([wrong_dte, wrong_pca], dtype=float) / len(y)


# 9.7 ------------------------------------------------------------------------------------------------------
# A count read off the recorded Table I that ships with the package (deterministic): right only when exact; one off
# is "close" (a strict instead of a non-strict comparison, or the margin applied the wrong way round).
@numeric_exercise("9.7", "extend", "data sets of the recorded Table I on which LDA is within half a point of DTE-1",
                  expects="an integer (a number of data sets)", **exact_integers(close_by=1), hints=_HINTS)
def _lda_within_half_a_point_of_dte1():
    from ..datasets import load_recorded_run

    table = load_recorded_run("dte")["table"]
    return float(sum(row["LDA"]["error_mean"] <= row["DTE-1"]["error_mean"] + 0.5 for row in table.values()))
