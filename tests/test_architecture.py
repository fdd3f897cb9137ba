"""The map of the house stays true: every path ARCHITECTURE.md and CONTRIBUTING.md name exists,
every dotted ``tabular_trees`` name they give resolves, compiled code lives only in kernel modules
named by the one convention, and no module name collides with a top-level module's."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tabular_trees"
DOCS = ["ARCHITECTURE.md", "CONTRIBUTING.md"]
PATHLIKE = re.compile(r"^[\w<>./*-]+\.(py|md|yml|yaml|ipynb|json|bib|toml|npz)$|^[\w<>.-]+(/[\w<>.*-]+)+/?$")


def _backticked(text):
    return set(re.findall(r"`([^`\n]+)`", text))


def _pattern_to_glob(token):
    glob = re.sub(r"<[^>]+>", "*", token)
    glob = re.sub(r"NN_\w+", "[0-9][0-9]_*", glob)  # book/NN_name.ipynb: a chapter's number and name
    return glob.replace("NN", "[0-9][0-9]")


def path_tokens(text):
    """The backticked tokens of ``text`` that name a file or folder (templates included)."""
    return sorted(t for t in _backticked(text) if PATHLIKE.match(t) and not t.startswith("tabular_trees."))


def missing_paths(text, root=ROOT):
    """Tokens of :func:`path_tokens` that no file under ``root`` matches.

    A token with a slash is relative to ``root``; a bare file name (``conftest.py``,
    ``_<module>_kernels.py``) may live anywhere below it. ``<name>``, ``NN`` and ``NN_name`` are wildcards.
    """
    missing = []
    for token in path_tokens(text):
        glob = _pattern_to_glob(token.rstrip("/"))
        hits = list(root.glob(glob)) if "/" in token else list(root.rglob(glob))
        if not hits:
            missing.append(token)
    return missing


@pytest.mark.parametrize("doc", DOCS)
def test_every_named_path_exists(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert len(path_tokens(text)) >= 10, "the map names too few paths to be a map"
    assert missing_paths(text) == []


def test_the_path_check_catches_a_stale_path(tmp_path):
    (tmp_path / "tabular_trees").mkdir()
    (tmp_path / "tabular_trees" / "_tree_kernels.py").write_text("")
    text = "`tabular_trees/_tree_kernels.py`, `_<module>_kernels.py`, `tabular_trees/_cart_kernels.py`, `book/NN_x.ipynb`"
    assert missing_paths(text, tmp_path) == ["book/NN_x.ipynb", "tabular_trees/_cart_kernels.py"]


@pytest.mark.parametrize("doc", DOCS)
def test_every_named_module_attribute_resolves(doc):
    names = sorted(t for t in _backticked((ROOT / doc).read_text(encoding="utf-8"))
                   if re.fullmatch(r"tabular_trees(\.\w+)+", t))
    unresolved = []
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                unresolved.append(name)
            break
        else:
            unresolved.append(name)
    assert not unresolved


def _compiles(path):
    """Whether the module defines a numba-compiled function (decorated with njit/jit/vectorize)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in {"njit", "jit", "vectorize", "guvectorize", "stencil"}:
                    return True
    return False


# exercises/_chapter07.py names numba in its docstring (what a lab file may import) and compiles nothing.
OUTSIDE_THE_RULE = {"exercises/_chapter07.py"}


def test_compiled_code_lives_only_in_kernel_modules_named_after_their_module():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in OUTSIDE_THE_RULE or not _compiles(path):
            continue
        m = re.fullmatch(r"_(\w+)_kernels\.py", path.name)
        siblings = {p.stem for p in path.parent.glob("*.py")} | {path.parent.name}
        if not m or m.group(1) not in siblings:
            bad.append(rel)
    assert not bad, f"compiled code outside a _<module>_kernels.py beside its module: {bad}"


def _public_modules():
    mods = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if any(part.startswith("_") for part in rel.parts):
            continue
        mods.append(rel)
    return mods


# none left: bayes/soft_tree.py (one letter from soft_trees.py) is now bayes/soft_split_tree.py
KNOWN_NEAR_COLLISIONS: set[str] = set()


def test_no_module_shares_a_top_level_modules_name():
    top = {p.stem.rstrip("s") for p in PACKAGE.glob("*.py") if not p.name.startswith("_")}
    top |= {p.name.rstrip("s") for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    clash = sorted(rel.as_posix() for rel in _public_modules()
                   if len(rel.parts) > 1 and rel.stem.rstrip("s") in top
                   and rel.as_posix() not in KNOWN_NEAR_COLLISIONS)
    assert not clash, f"modules named like a top-level module (tree.py vs boosting/tree.py): {clash}"


def test_the_old_boosting_tree_path_warns_for_one_release():
    from tabular_trees.boosting import BoostedTree

    with pytest.warns(DeprecationWarning, match="boosting.tree.BoostedTree.*boosted_tree"):
        from tabular_trees.boosting.tree import BoostedTree as old
    assert old is BoostedTree


# Where a user's seed may become a generator: the one rule in _validation, and the Bayesian estimators' spawning of
# one child per chain from a random_state that rule has already checked.
SEED_TO_GENERATOR_ALLOWED = {("_validation.py", "check_seed"), ("_validation.py", "check_generator_seed"),
                             ("bayes/estimators.py", "_chain_seeds")}
_GENERATOR_MAKERS = {"check_random_state", "default_rng", "RandomState", "SeedSequence"}


def _seed_conversions(tree):
    """(enclosing function, maker) for every call that builds a generator from something other than a literal."""
    found = []

    def visit(node, func):
        for child in ast.iter_child_nodes(node):
            name = func
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            if isinstance(child, ast.Call):
                callee = child.func.attr if isinstance(child.func, ast.Attribute) else getattr(child.func, "id", "")
                if callee == "RandomState" and not isinstance(child.func, ast.Attribute):
                    callee = ""  # _validation's hyperparameter rule RandomState(), not numpy's generator
                literal = all(isinstance(a, ast.Constant) for a in child.args) and not child.keywords
                if callee in _GENERATOR_MAKERS and not literal:
                    found.append((func, callee))
            visit(child, name)

    visit(tree, None)
    return found


def test_one_seed_rule_and_one_missing_target_rule():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        source = path.read_text()
        for func, callee in _seed_conversions(ast.parse(source)):
            if (rel, func) not in SEED_TO_GENERATOR_ALLOWED and not rel.startswith("exercises/"):
                bad.append(f"{rel}:{func} calls {callee} on a seed")
        if rel != "_validation.py" and re.search(r"\bif y is None\b", source):
            bad.append(f"{rel} refuses y=None by hand (use _validation.require_y)")
    assert not bad, bad


def test_the_seed_rule_scan_finds_a_hand_written_rule():
    tree = ast.parse("import numpy as np\ndef fit(self, seed):\n    return np.random.default_rng(seed)\n")
    assert _seed_conversions(tree) == [("fit", "default_rng")]
    assert _seed_conversions(ast.parse("np.random.default_rng(0)\n")) == []
