"""The papers' published numbers, typed in once: RJHMC-Tree's Tables 1, 2 and 4 (Cochrane, Wills & Johnson, 2023).

Re-exported by :mod:`tabular_trees.datasets` (import it from there).
"""

from __future__ import annotations

__all__ = ["rjhmc_paper_results"]


# The paper's published results, typed in once from Cochrane, Wills & Johnson (2023): Table 1 (CGM data),
# Table 2 (real data; Raisin left out, the course does not reproduce it) and Table 4 (hyperparameters).
# The chapter, its reproduction notes and benchmarks/reproduce_rjhmc.py all read them from here.
_PAPER_TABLE1 = {  # train and test MSE, sd of the test MSE, average leaves, acceptance %
    "cgm": dict(train_mse=0.043, test_mse=0.064, test_sd=0.014, leaves=12.90, acceptance=0.02),
    "wu": dict(train_mse=0.042, test_mse=0.062, test_sd=0.001, leaves=33.1, acceptance=2.17),
    "hmc-df": dict(train_mse=0.043, test_mse=0.041, test_sd=4.6e-4, leaves=9.68, acceptance=36.34),
    "hmc-dfi": dict(train_mse=0.043, test_mse=0.041, test_sd=4.5e-4, leaves=8.15, acceptance=36.45),
}
_PAPER_TABLE2_ROWS = (  # dataset, method, train acc, test acc, sd of the test acc, average leaves, acceptance %
    ("bcw", "cgm", 0.983, 0.939, 0.014, 16.55, 36.47), ("bcw", "smc", 0.987, 0.924, 0.010, 18.55, None),
    ("bcw", "wu", 0.978, 0.922, 0.017, 5.09, 6.58), ("bcw", "hmc-df", 0.973, 0.940, 0.010, 5.05, 54.09),
    ("bcw", "hmc-dfi", 0.981, 0.952, 0.007, 4.17, 58.64),
    ("iris", "cgm", 0.985, 0.908, 0.022, 4.33, 8.24), ("iris", "smc", 0.981, 0.909, 0.022, 4.55, None),
    ("iris", "hmc-df", 0.977, 0.906, 0.026, 3.38, 56.92), ("iris", "hmc-dfi", 0.975, 0.917, 0.023, 3.45, 59.01),
    ("wine", "cgm", 0.957, 0.916, 0.046, 8.92, 19.64), ("wine", "smc", 0.985, 0.978, 0.022, 9.20, None),
    ("wine", "hmc-df", 0.949, 0.950, 0.039, 5.92, 53.04), ("wine", "hmc-dfi", 0.952, 0.948, 0.022, 6.12, 53.11),
)
_PAPER_TABLE4 = {  # (h_init, h_final, alpha, beta); CGM has no softness (its prior on the real data: Chipman et al.'s)
    "hmc-df": {"cgm": (0.001, 0.001, 0.45, 2.5), "iris": (0.01, 0.01, 0.45, 1.0),
               "bcw": (0.025, 0.025, 0.45, 2.5), "wine": (0.025, 0.025, 0.45, 2.0)},
    "hmc-dfi": {"cgm": (0.01, 0.001, 0.45, 2.5), "iris": (0.01, 0.01, 0.7, 1.0),
                "bcw": (0.1, 0.025, 0.95, 2.0), "wine": (0.025, 0.025, 0.7, 1.5)},
    "cgm": {"cgm": (None, None, 0.45, 2.5), "iris": (None, None, 0.95, 1.0),
            "bcw": (None, None, 0.95, 1.0), "wine": (None, None, 0.95, 1.0)},
}


def rjhmc_paper_results():
    """The published results of RJHMC-Tree (Cochrane, Wills & Johnson, 2023), as printed in the paper.

    Returns
    -------
    dict
        A fresh copy (change it freely) with three keys:

        - ``"table1"``: the CGM data, ``{method: {"train_mse", "test_mse", "test_sd", "leaves",
          "acceptance"}}`` for ``"cgm"``, ``"wu"``, ``"hmc-df"`` and ``"hmc-dfi"`` (acceptance in %);
        - ``"table2"``: the real data, ``{dataset: {method: {"train_acc", "test_acc", "test_sd",
          "leaves", "acceptance"}}}`` for ``"bcw"``, ``"iris"`` and ``"wine"`` (datasets as in
          :func:`load_rjhmc_real`) and the methods the paper ran on each (``"wu"`` only on ``"bcw"``;
          ``"smc"`` has no acceptance rate, so ``None``);
        - ``"table4"``: the hyperparameters, ``{method: {dataset: (h_init, h_final, alpha, beta)}}``
          with dataset ``"cgm"`` for the CGM data (``None`` softness for CGM).

    Examples
    --------
    >>> from tabular_trees.datasets import rjhmc_paper_results
    >>> paper = rjhmc_paper_results()
    >>> paper["table1"]["hmc-df"]["test_mse"], paper["table2"]["iris"]["hmc-dfi"]["test_acc"]
    (0.041, 0.917)
    >>> paper["table4"]["hmc-dfi"]["bcw"]
    (0.1, 0.025, 0.95, 2.0)
    """
    table2 = {}
    for dataset, method, train_acc, test_acc, test_sd, leaves, acceptance in _PAPER_TABLE2_ROWS:
        table2.setdefault(dataset, {})[method] = dict(train_acc=train_acc, test_acc=test_acc, test_sd=test_sd,
                                                      leaves=leaves, acceptance=acceptance)
    return {
        "table1": {method: dict(row) for method, row in _PAPER_TABLE1.items()},
        "table2": table2,
        "table4": {method: dict(by_data) for method, by_data in _PAPER_TABLE4.items()},
    }
