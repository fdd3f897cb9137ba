"""Computations that the reference answers of several chapters share.

A reference answer is recomputed from the chapter's data, splitter and seeds when a student first checks. The
chapters differ in their data and models, not in how they score them: "fit a fresh copy of the model on each
training fold and average the test-fold RMSEs" is written once here, as is the root-mean-square error itself
and the one-BLAS-thread guard for references made of many small fits.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["rmse", "mean_fold_rmse", "single_thread"]


def rmse(y_true, y_pred):
    """Root-mean-square error of ``y_pred`` against ``y_true`` (arrays or pandas Series of the same length).

    Examples
    --------
    >>> rmse([1.0, 2.0, 3.0], [1.0, 2.0, 5.0])
    1.1547005383792515
    """
    return float(np.sqrt(np.mean((np.asarray(y_true, dtype=float) - np.asarray(y_pred, dtype=float)) ** 2)))


def _rows(data, index):
    return data.iloc[index] if hasattr(data, "iloc") else data[index]


def mean_fold_rmse(model, X, y, folds):
    """Mean over ``folds`` of the test-fold RMSE of a fresh copy of ``model`` fitted on the training fold.

    Parameters
    ----------
    model : estimator
        A scikit-learn compatible regressor; each fold fits its own ``sklearn.base.clone`` of it, so a seeded
        model gives each fold the same fit as a newly constructed one.
    X, y : array or pandas object
        The data; rows are taken by position (``.iloc`` for pandas objects).
    folds : iterable of (train, test)
        Positions of the training and test rows, as a scikit-learn splitter's ``split`` yields them.

    Returns
    -------
    float
        The mean of the fold RMSEs, in the units of ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.model_selection import KFold
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> y = X @ [1.0, 2.0]
    >>> mean_fold_rmse(LinearRegression(), X, y, KFold(n_splits=5).split(X)) < 1e-9
    True
    """
    from sklearn.base import clone

    scores = []
    for train, test in folds:
        fitted = clone(model).fit(_rows(X, train), _rows(y, train))
        scores.append(rmse(_rows(y, test), fitted.predict(_rows(X, test))))
    return float(np.mean(scores))


def single_thread(function):
    """Run the reference ``function`` with one BLAS/OpenMP thread.

    Its fits are small, and threads fighting for busy cores make such a reference many times slower; the
    result does not depend on the number of threads.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> @single_thread
    ... def threads():
    ...     return {pool["num_threads"] for pool in threadpool_info()} <= {1}
    >>> threads()
    True
    """

    @functools.wraps(function)
    def wrapper():
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            return function()

    return wrapper
