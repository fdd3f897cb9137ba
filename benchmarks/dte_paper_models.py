"""The classifiers of the DTE paper's Table I (Jiang et al.), configured like its MATLAB set-up.

Benchmark code: ``benchmarks/bench_dte.py`` runs the paper's protocol with these models. Chapter 13 of the
book spells the same models out in a cell (it runs from an empty directory, without this folder);
``tests/test_dte_paper_models.py`` checks that the two lists agree, parameter for parameter.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from tabular_trees.dte import DTEClassifier, PseudoLinearDiscriminantAnalysis


def paper_models(random_state=None, *, nonlinear=True, lda=True):
    """The classifiers of the paper's Table I, configured like its MATLAB set-up.

    - ``"DTE-1"``: MATLAB ``fitctree(NumBins=30, MinLeafSize=10)`` + ``fitcdiscr`` pseudolinear;
      here ``DTEClassifier(n_trees=1, standardize=False)`` (raw features, as in MATLAB).
    - ``"DTE-3"``: the same tree plus two bootstrap trees; ``DTEClassifier(n_trees=3, standardize=False)``.
    - ``"Tree"``: ``fitctree`` defaults (Gini, ``MinParentSize=10``);
      ``DecisionTreeClassifier(min_samples_split=10)``.
    - ``"RF"``: ``TreeBagger`` with 50 trees (``sqrt(p)`` features per split);
      ``RandomForestClassifier(n_estimators=50, max_features="sqrt", n_jobs=1)``.
    - ``"MLP"``: ``fitcnet`` with 100 hidden ReLU units, standardised inputs, L-BFGS, no penalty,
      at most 1000 iterations; ``StandardScaler`` + ``MLPClassifier((100,), solver="lbfgs",
      alpha=0, max_iter=1000)``.
    - ``"LDA"`` (not in the paper): :class:`PseudoLinearDiscriminantAnalysis` on ``X``.
    - ``"DTE-1 RBF"``, ``"DTE-3 RBF"`` (not in the paper): ``DTEClassifier(embedding="rbf",
      standardize=False)`` with one and three trees.

    Parameters
    ----------
    random_state : int, RandomState or None, default=None
        Seed passed to every randomised model.
    nonlinear : bool, default=True
        Include the RBF anchor variants.
    lda : bool, default=True
        Include plain LDA on the original features.

    Returns
    -------
    models : dict of str to estimator
        Unfitted estimators, in the order of the table.

    Examples
    --------
    >>> sorted(paper_models(0, nonlinear=False, lda=False))
    ['DTE-1', 'DTE-3', 'MLP', 'RF', 'Tree']
    """
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(f"random_state must be None, an int or a numpy.random.RandomState, got {random_state!r}.")
    try:  # an invalid seed fails here, naming random_state, not later at fit
        check_random_state(random_state)
    except ValueError as err:
        raise ValueError(f"random_state: {err}") from None
    for flag, value in (("nonlinear", nonlinear), ("lda", lda)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{flag} must be a bool, got {value!r}.")
    models = {
        "DTE-1": DTEClassifier(n_trees=1, standardize=False, random_state=random_state),
        "DTE-3": DTEClassifier(n_trees=3, standardize=False, random_state=random_state),
        "Tree": DecisionTreeClassifier(min_samples_split=10, random_state=random_state),
        "RF": RandomForestClassifier(n_estimators=50, max_features="sqrt", n_jobs=1, random_state=random_state),
        "MLP": make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(100,), solver="lbfgs", alpha=0.0, max_iter=1000, random_state=random_state
            ),
        ),
    }
    if lda:
        models["LDA"] = PseudoLinearDiscriminantAnalysis()
    if nonlinear:
        models["DTE-1 RBF"] = DTEClassifier(n_trees=1, embedding="rbf", standardize=False, random_state=random_state)
        models["DTE-3 RBF"] = DTEClassifier(n_trees=3, embedding="rbf", standardize=False, random_state=random_state)
    return models
