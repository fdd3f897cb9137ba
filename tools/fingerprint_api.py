"""Fingerprint the numbers of the public API on fixed inputs, to prove a refactoring changed none.

Run it with the library of two commits on ``PYTHONPATH`` and compare the two outputs::

    git worktree add /tmp/base 5df643b
    PYTHONPATH=/tmp/base python tools/fingerprint_api.py > /tmp/before.json
    PYTHONPATH=$PWD python tools/fingerprint_api.py > /tmp/after.json
    python tools/fingerprint_api.py --compare /tmp/before.json /tmp/after.json

Each entry is the SHA-256 of the bytes of a result (arrays as float64/int64 in C order, so equal
fingerprints mean bit-identical numbers). It calls only names that both sides import from the
paths fixed for users (``tabular_trees.datasets.<name>``, ``tabular_trees.boosting.<name>``, ...).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np


def _digest(obj):
    h = hashlib.sha256()

    def feed(o):
        if isinstance(o, dict):
            for k in sorted(o, key=str):
                h.update(str(k).encode())
                feed(o[k])
        elif isinstance(o, (list, tuple)):
            h.update(f"[{len(o)}".encode())
            for v in o:
                feed(v)
        elif hasattr(o, "to_numpy"):  # pandas
            feed(list(map(str, getattr(o, "columns", [getattr(o, "name", "")]))))
            feed(o.to_numpy())
        elif isinstance(o, np.ndarray) or np.isscalar(o) and not isinstance(o, str):
            a = np.asarray(o)
            if a.dtype.kind in "fc":
                a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            elif a.dtype.kind in "iub":
                a = a.astype(np.int64)
            else:
                a = a.astype(str)
                h.update(repr(a.tolist()).encode())
                return
            h.update(str(a.shape).encode())
            h.update(np.ascontiguousarray(a).tobytes())
        else:
            h.update(repr(o).encode())

    feed(obj)
    return h.hexdigest()


def cases():
    from tabular_trees import boosting, datasets, dte, mkl, ntk, shapley, soft_trees, tree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y_reg = X[:, 0] - 2 * X[:, 1] ** 2 + 0.1 * rng.normal(size=60)
    y_cls = (X[:, 0] + X[:, 2] > 0).astype(int)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    out = {}
    # datasets
    out["datasets.make_sine"] = datasets.make_sine(random_state=0)
    out["datasets.make_sine.grid"] = datasets.make_sine(40, design="grid", random_state=3) \
        if "grid" in (datasets.make_sine.__doc__ or "") else datasets.make_sine(40, random_state=3)
    out["datasets.sine_function"] = datasets.sine_function(X[:, 0])
    out["datasets.make_tic_tac_toe"] = datasets.make_tic_tac_toe()
    out["datasets.make_tic_tac_toe.std"] = datasets.make_tic_tac_toe(standardize=True)
    out["datasets.make_cgm"] = datasets.make_cgm(random_state=0)
    out["datasets.make_cgm.seed5"] = datasets.make_cgm(100, 50, noise=0.5, random_state=5)
    out["datasets.cgm_tree_function"] = datasets.cgm_tree_function(np.random.default_rng(1).random((30, 2)))
    out["datasets.make_dte_mixture"] = datasets.make_dte_mixture(200, return_components=True, random_state=2)
    out["datasets.DTE_MIXTURE_MEANS"] = datasets.DTE_MIXTURE_MEANS
    out["datasets.rjhmc_paper_results"] = datasets.rjhmc_paper_results()
    for name in ("iris", "wine", "bcw"):
        try:
            out[f"datasets.load_rjhmc_real.{name}"] = datasets.load_rjhmc_real(name)
        except ImportError:
            pass
    try:
        out["datasets.load_breast_cancer_original"] = datasets.load_breast_cancer_original(missing="keep")
    except (ImportError, ValueError):
        pass
    for target in ("hardness", "yield_strength", "phase"):
        try:
            out[f"datasets.load_mpea.{target}"] = datasets.load_mpea(target=target)
        except ImportError:
            pass
    for name in ("dte", "ntk", "rjhmc_paper"):  # the recordings the package ships (benchmark records are not)
        out[f"datasets.load_recorded_run.{name}"] = datasets.load_recorded_run(name)
    # tree
    out["tree.node_impurity"] = [tree.node_impurity(y_cls, c) for c in ("gini", "entropy")]
    out["tree.split_scan"] = tree.split_scan(X[:, 0], y_reg)
    out["tree.best_split"] = tuple(tree.best_split(X, y_reg, min_samples_leaf=3))
    for Est, y in ((tree.CARTRegressor, y_reg), (tree.CARTClassifier, y_cls)):
        m = Est(max_depth=4, random_state=0).fit(X, y)
        out[f"tree.{Est.__name__}"] = [m.predict(X), m.tree_.threshold, m.tree_.value, m.tree_.feature]
    Xm = X.copy()
    Xm[::7, 1] = np.nan
    out["tree.CARTRegressor.missing"] = tree.CARTRegressor(max_depth=3, random_state=1).fit(Xm, y_reg).predict(Xm)
    # boosting
    out["boosting.leaf_weight"] = boosting.leaf_weight(np.array([-6.0, 2.5]), np.array([3.0, 1.0]), 0.5)
    out["boosting.split_gain"] = boosting.split_gain(2.0, 2.0, -2.0, 2.0, reg_lambda=0.3, gamma=0.1)
    edges = boosting.compute_bin_edges(X, 16)
    Xb = boosting.bin_data(X, edges)
    out["boosting.bins"] = [edges, Xb, boosting.build_histogram(Xb, y_reg, np.ones(60), n_bins=17)]
    g = boosting.GradientBoostingRegressor(n_estimators=30, max_depth=3, early_stopping_rounds=5,
                                           validation_fraction=0.2, random_state=0).fit(X, y_reg)
    out["boosting.GradientBoostingRegressor"] = [g.predict(X), g.feature_importances_]
    c = boosting.GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0).fit(X, y3)
    out["boosting.GradientBoostingClassifier"] = [c.predict_proba(X), c.predict(X)]
    out["boosting.losses"] = [boosting.SquaredError().gradients(y_reg, np.zeros(60)),
                              boosting.LogisticLoss().gradients(y_cls, np.zeros(60))] \
        if hasattr(boosting.SquaredError(), "gradients") else []
    # ntk
    Xn = X[:8, :3]
    out["ntk.node_expectations"] = ntk.node_expectations(Xn, features=(0, 1))
    out["ntk.oblique_ntk"] = ntk.oblique_ntk(Xn, Xn[:5], depth=3)
    for mode in ("AAA", "AAI"):
        out[f"ntk.oblivious_ntk.{mode}"] = ntk.oblivious_ntk(Xn, features=(0, 2), mode=mode)
        out[f"ntk.axis_aligned_ntk.{mode}"] = ntk.axis_aligned_ntk(Xn, paths=[(0, 1), (0, 2), (1,)], mode=mode)
        sets = ntk.all_feature_sets(3, 3)
        out[f"ntk.kernel_bank.{mode}"] = ntk.kernel_bank(Xn, feature_sets=sets, mode=mode)
        out[f"ntk.iter_kernel_bank.{mode}"] = [b for _, b in ntk.iter_kernel_bank(Xn, feature_sets=sets, mode=mode,
                                                                                   chunk_size=3)]
        out[f"ntk.weighted_kernel_sum.{mode}"] = ntk.weighted_kernel_sum(Xn, feature_sets=sets,
                                                                         weights=np.arange(len(sets)), mode=mode)
    out["ntk.to_oblivious"] = ntk.to_oblivious([(0, 1), (0, 2), (1,)])
    H = ntk.oblique_ntk(Xn, depth=2)
    out["ntk.ntk_trajectory"] = ntk.ntk_trajectory(H, H[:3], y_reg[:8], learning_rate=0.01, steps=[0, 5, 50])
    # soft trees
    ens = soft_trees.SoftTreeEnsemble(soft_trees.perfect_tree((None, None)), 4, n_features=4, random_state=0)
    out["soft_trees.empirical_ntk"] = ens.empirical_ntk(X[:10])
    out["soft_trees.fit_gd"] = ens.fit_gd(X[:20], y_reg[:20], learning_rate=0.01, n_steps=5)
    out["soft_trees.SoftTreeRegressor"] = soft_trees.SoftTreeRegressor(n_trees=4, n_iter=20, random_state=0) \
        .fit(X, y_reg).predict(X)
    # mkl
    K = np.stack([np.outer(X[:, j], X[:, j]) for j in range(4)])
    m = mkl.EasyMKL(lam=0.1).fit(K, y_cls)
    out["mkl.EasyMKL"] = [m.weights_, m.decision_function(K)]
    # dte
    Xd, yd = datasets.make_dte_mixture(150, random_state=0)
    emb = dte.DecisionTreeEmbedding(n_trees=3, random_state=0).fit(Xd, yd)
    out["dte.DecisionTreeEmbedding"] = emb.transform(Xd)
    out["dte.DTEClassifier"] = dte.DTEClassifier(n_trees=3, random_state=0).fit(Xd, yd).predict_proba(Xd)
    # the Table I models moved from tabular_trees.dte to benchmarks/dte_paper_models.py (same key: same numbers)
    paper_models = getattr(dte, "paper_models", None) if "paper_models" in getattr(dte, "__all__", ()) else None
    if paper_models is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
        from dte_paper_models import paper_models
    out["dte.paper_models"] = {k: v.fit(Xd, yd).predict(Xd) for k, v in paper_models(7).items()}
    out["dte.quantile_bin_edges"] = dte.quantile_bin_edges(Xd, 30) \
        if "quantile_bin_edges" in dte.__all__ else None
    # shapley
    f = tree.CARTRegressor(max_depth=3, random_state=0).fit(X, y_reg).predict
    out["shapley.interventional_shapley"] = shapley.interventional_shapley(f, X[:3], X[:10])
    out["shapley.interventional_shapley_interactions"] = shapley.interventional_shapley_interactions(f, X[:2], X[:8])
    return out


def main(argv):
    if argv[:1] == ["--compare"]:
        a, b = (json.load(open(p)) for p in argv[1:3])
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print(f"{len(a)} vs {len(b)} fingerprints; {len(diff)} differ: {diff}")
        return 1 if diff else 0
    import warnings

    warnings.simplefilter("ignore")
    results = {}
    for name, value in cases().items():
        results[name] = _digest(value)
    json.dump(results, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
