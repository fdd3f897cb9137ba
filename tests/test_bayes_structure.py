"""Structure rules of ``tabular_trees.bayes``, read from its source (no code is run).

* No function or method takes more than ``MAX_PARAMS`` parameters (every parameter counts:
  ``self``/``cls``, positional, keyword-only, ``*args`` and ``**kwargs``; compiled kernels
  included). State travels in named records instead (``_TreeData``, ``_Topology``,
  ``_NutsConfig``, ... in the kernels; ``TreePrior``, ``RJHMCSettings``, ``CGMPrior`` in the
  public API).
* Model codes are compared by name, never as bare integers (``model == 2``).
* The workspace row layout (rows ``k * n_nodes + c``) is written down in one function,
  ``_posterior_kernels._ws_layout``.

Before these rules were enforced the package broke all three (``_run_nuts`` took 31
parameters, the layout was re-derived in 7 functions, model codes were compared as integers in
5 places); ``test_rules_catch_the_old_shapes`` shows that each rule fails on such code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tabular_trees

BAYES = Path(tabular_trees.__file__).resolve().parent / "bayes"
MAX_PARAMS = 12
LAYOUT_OWNER = "_ws_layout"


def _n_params(fn):
    a = fn.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)


def too_many_parameters(tree):
    """``[(name, line, n_params)]`` of the functions, methods and lambdas above ``MAX_PARAMS``."""
    return [(getattr(node, "name", "<lambda>"), node.lineno, _n_params(node)) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and _n_params(node) > MAX_PARAMS]


def _name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def bare_model_comparisons(tree):
    """Lines comparing something called ``model`` with an integer literal."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_name(s) == "model" for s in sides) and any(
                    isinstance(s, ast.Constant) and type(s.value) is int for s in sides):
                out.append(node.lineno)
    return out


def _is_layout_product(node):
    """``k * n_nodes`` or ``n_nodes * k`` with an integer literal k (a workspace row offset)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    pair = (node.left, node.right)
    return (any(isinstance(s, ast.Constant) and type(s.value) is int for s in pair)
            and any(_name(s) == "n_nodes" for s in pair))


def layout_outside_owner(tree):
    """``[(function, line)]`` where a row offset ``k * n_nodes`` is computed outside ``_ws_layout``."""
    out = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name != LAYOUT_OWNER:
            out += [(fn.name, n.lineno) for n in ast.walk(fn) if _is_layout_product(n)]
    return out


SOURCES = sorted(BAYES.glob("*.py"))


def _parse(path):
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_every_module_is_read():
    names = {p.name for p in SOURCES}
    assert {"nuts.py", "posterior.py", "_posterior_kernels.py", "rjhmc.py", "cgm.py", "estimators.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_function_takes_more_than_twelve_parameters(path):
    assert too_many_parameters(_parse(path)) == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_model_codes_are_compared_by_name(path):
    assert bare_model_comparisons(_parse(path)) == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_workspace_layout_has_one_owner(path):
    assert layout_outside_owner(_parse(path)) == []


def test_layout_owner_exists():
    tree = _parse(BAYES / "_posterior_kernels.py")
    owner = [fn for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == LAYOUT_OWNER]
    assert len(owner) == 1 and sum(_is_layout_product(n) for n in ast.walk(owner[0])) >= 5


OLD_SHAPES = '''
def _run_nuts(theta0, seed, n_warmup, n_samples, max_depth, target_accept, win_start, win_end,
              ramp_start, ramp_end, h_init, h_final, gibbs, n_features, model, X, w):
    regression = model == 0 or model == 1
    n_nodes = left.shape[0]
    SIMP = 3 * n_nodes
    return regression

class Estimator:
    def __init__(self, method, n_iter, n_burnin, random_state, n_chains, n_jobs, k_warmup, h_init, h_final,
                 alpha, beta, *args, **kwargs):
        pass
'''


def test_rules_catch_the_old_shapes():
    """Each rule fails on code shaped like the package before the renovation (so none is vacuous)."""
    tree = ast.parse(OLD_SHAPES)
    assert [(name, n) for name, _, n in too_many_parameters(tree)] == [("_run_nuts", 17), ("__init__", 14)]
    assert len(bare_model_comparisons(tree)) == 2  # model == 0, model == 1
    assert [name for name, _ in layout_outside_owner(tree)] == ["_run_nuts"]
    # the boundary: exactly twelve is allowed
    twelve = ast.parse("def f(a, b, c, d, e, f, g, h, i, j, k, l): pass")
    assert too_many_parameters(twelve) == []
    assert too_many_parameters(ast.parse("def f(a, b, c, d, e, f, g, h, i, j, k, *, l, m): pass")) != []


def test_old_soft_tree_module_name_still_imports_with_a_deprecation_warning():
    from tabular_trees.bayes import soft_split_tree

    with pytest.warns(DeprecationWarning, match="bayes.soft_tree.SoftTree.*soft_split_tree"):
        from tabular_trees.bayes.soft_tree import SoftTree as old
    assert old is soft_split_tree.SoftTree
