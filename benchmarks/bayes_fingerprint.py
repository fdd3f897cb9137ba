"""Fingerprint of fixed-seed Bayesian-tree chains: one SHA-256 per case, to compare two commits bit for bit.

Usage (the numbers must not change when the code is only reorganised; BASE is the git revision to compare
against, e.g. ``HEAD`` before a change)::

    git worktree add /tmp/base BASE
    PYTHONPATH=/tmp/base python benchmarks/bayes_fingerprint.py > base.txt
    PYTHONPATH=$PWD python benchmarks/bayes_fingerprint.py > new.txt
    diff base.txt new.txt
"""

import hashlib
import warnings

import numpy as np
from sklearn.datasets import load_iris

from tabular_trees import bayes
from tabular_trees.datasets import make_cgm


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()[:16]


def main():
    warnings.simplefilter("ignore", DeprecationWarning)
    Xtr, ytr, Xte, _ = make_cgm(random_state=0)
    Xtr, ytr, Xte = Xtr[:200], ytr[:200], Xte[:50]
    Xi, yi = load_iris(return_X_y=True)
    cases = {}
    for method in ("hmc-df", "hmc-dfi", "cgm"):
        sampler = None if method == "cgm" else bayes.RJHMCSettings(k_warmup=15)
        n_iter = 300 if method == "cgm" else 12
        for scale in (False, True):
            m = bayes.BayesianTreeRegressor(method=method, n_iter=n_iter, n_burnin=n_iter // 2, n_chains=2, n_jobs=1,
                                            random_state=7, sampler=sampler, standardize_y=scale).fit(Xtr, ytr)
            cases[f"regression {method} standardize_y={scale}"] = digest(
                m.log_posterior_, m.n_leaves_, m.moves_, m.accepted_, m.divergences_, m.sample_predictions(Xte))
        c = bayes.BayesianTreeClassifier(method=method, n_iter=n_iter, n_burnin=n_iter // 2, n_chains=2, n_jobs=1,
                                         random_state=3, sampler=sampler).fit(Xi, yi)
        cases[f"classification {method}"] = digest(c.log_posterior_, c.n_leaves_, c.accepted_, c.predict_proba(Xi))
    post = bayes.TreePosterior((Xtr - Xtr.min(0)) / np.ptp(Xtr, axis=0), ytr, "regression", use_simplex=False)
    for start in ("paper", "reference"):
        r = bayes.rjhmc_chain(post, n_iter=10, n_burnin=5, seed=11,
                              sampler=bayes.RJHMCSettings(k_warmup=10, prune_start=start, step_size_search=False))
        cases[f"rjhmc_chain prune_start={start}"] = digest(r.log_posterior, r.log_alpha, r.n_leaves)
    for name, d in cases.items():
        print(f"{name}: {d}")


if __name__ == "__main__":
    main()
