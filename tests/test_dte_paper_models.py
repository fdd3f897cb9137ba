"""The DTE paper's Table I models: ``benchmarks/dte_paper_models.py`` (what ``bench_dte.py`` runs) and the
cell of chapter 13 that spells them out (the page runs without the repository) are the same models, parameter
for parameter; the library's old name answers with where they went."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def paper_models():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from dte_paper_models import paper_models
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return paper_models


@pytest.fixture(scope="module")
def table_one_models():
    nb = json.loads((ROOT / "book" / "13_dte_reproduction_notes.ipynb").read_text())
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    (cell,) = [s for s in sources if s.startswith("def table_one_models(")]
    namespace = {}
    exec(  # the page's own imports for the names the cell uses, then the cell
        "from sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.neural_network import MLPClassifier\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "from sklearn.tree import DecisionTreeClassifier\n"
        "from tabular_trees.dte import DTEClassifier, PseudoLinearDiscriminantAnalysis\n" + cell, namespace)
    return namespace["table_one_models"]


def _described(model):
    params = model.get_params(deep=True)
    return type(model).__name__, {k: repr(v) for k, v in params.items()}


@pytest.mark.parametrize("seed", [0, 7, None])
def test_chapter_13_lists_the_benchmark_models(paper_models, table_one_models, seed):
    ours, theirs = table_one_models(seed), paper_models(seed)
    assert list(ours) == list(theirs)
    for name in ours:
        assert _described(ours[name]) == _described(theirs[name]), name


@pytest.mark.parametrize("bad", ["x", 1.5, True, np.random.default_rng(0)])
def test_paper_models_seed_error_names_random_state(paper_models, bad):
    with pytest.raises((TypeError, ValueError), match="random_state"):
        paper_models(random_state=bad)
    with pytest.raises(ValueError, match="random_state"):
        paper_models(random_state=-1)
    with pytest.raises(TypeError, match="nonlinear"):
        paper_models(0, nonlinear="yes")


def test_the_old_library_name_says_where_the_models_went():
    from tabular_trees import dte

    assert "paper_models" not in dte.__all__
    with pytest.raises(AttributeError, match="benchmarks/dte_paper_models.py"):
        dte.paper_models  # noqa: B018
    with pytest.raises(ImportError):  # Python words this one itself ("cannot import name")
        from tabular_trees.dte import paper_models  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        dte.nonexistent  # noqa: B018
