"""BayesianTreeRegressor / BayesianTreeClassifier."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from tabular_trees.bayes import BayesianTreeClassifier, BayesianTreeRegressor
from tabular_trees.datasets import make_cgm

FAST = dict(n_iter=4, n_burnin=2, k_warmup=20, h_init=0.1, h_final=0.1)


@pytest.mark.parametrize("Est", [BayesianTreeRegressor, BayesianTreeClassifier])
@pytest.mark.parametrize("method", ["hmc-df", "cgm"])
def test_check_estimator(Est, method):
    check_estimator(Est(method=method, random_state=0, **FAST))


def test_fixed_signature_defaults():
    r = BayesianTreeRegressor()
    assert (r.method, r.n_iter, r.n_burnin, r.random_state) == ("hmc-df", 1000, 500, None)
    assert BayesianTreeClassifier().method == "hmc-df"


@pytest.mark.parametrize("method", ["hmc-df", "hmc-dfi", "cgm"])
def test_same_seed_identical_and_traces(method):
    Xtr, ytr, Xte, _ = make_cgm(n_train=120, n_test=30, random_state=1)
    kw = dict(method=method, n_iter=6, n_burnin=3, k_warmup=30, h_init=0.05, h_final=0.05, random_state=3)
    a = BayesianTreeRegressor(**kw).fit(Xtr, ytr)
    b = BayesianTreeRegressor(**kw).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.predict(Xte), b.predict(Xte))
    assert a.n_leaves_.shape == (1, 6) and a.log_posterior_.shape == (1, 6)
    assert 0.0 <= a.acceptance_["all"] <= 1.0
    assert len(a.trees_) == 3


def test_parallel_chains_equal_sequential_chains():
    Xtr, ytr, Xte, _ = make_cgm(n_train=100, n_test=20, random_state=2)
    kw = dict(method="hmc-dfi", n_iter=4, n_burnin=2, k_warmup=20, h_init=0.05, h_final=0.05, random_state=5,
              n_chains=2)
    seq = BayesianTreeRegressor(n_jobs=1, **kw).fit(Xtr, ytr)
    par = BayesianTreeRegressor(n_jobs=2, **kw).fit(Xtr, ytr)
    np.testing.assert_array_equal(seq.n_leaves_, par.n_leaves_)
    np.testing.assert_allclose(seq.predict(Xte), par.predict(Xte))
    assert not np.array_equal(seq.log_posterior_[0], seq.log_posterior_[1])


def test_batches_of_chains_equal_one_run():
    """Chains 1-2 of a 3-chain run equal a 2-chain run seeded with SeedSequence(s, n_children_spawned=1),
    and fitting twice with the same SeedSequence object gives the same chains."""
    Xtr, ytr, _, _ = make_cgm(n_train=80, n_test=10, random_state=4)
    kw = dict(method="cgm", n_iter=40, n_burnin=20)
    full = BayesianTreeRegressor(random_state=7, n_chains=3, **kw).fit(Xtr, ytr)
    ss = np.random.SeedSequence(7, n_children_spawned=1)
    batch = BayesianTreeRegressor(random_state=ss, n_chains=2, **kw).fit(Xtr, ytr)
    again = BayesianTreeRegressor(random_state=ss, n_chains=2, **kw).fit(Xtr, ytr)
    np.testing.assert_array_equal(full.log_posterior_[1:], batch.log_posterior_)
    np.testing.assert_array_equal(batch.log_posterior_, again.log_posterior_)
    assert ss.n_children_spawned == 1


def test_cgm_method_fits_cgm_data():
    Xtr, ytr, Xte, yte = make_cgm(random_state=0)
    reg = BayesianTreeRegressor(method="cgm", n_iter=1500, n_burnin=750, random_state=0).fit(Xtr, ytr)
    assert np.mean((reg.predict(Xte) - yte) ** 2) < 0.1


def test_progress_bar_runs():
    pytest.importorskip("tqdm")
    X = np.random.default_rng(0).random((20, 2))
    reg = BayesianTreeRegressor(progress=True, random_state=0, **FAST).fit(X, X[:, 0])
    assert reg.n_leaves_.shape == (1, 4)


def test_classifier_probabilities():
    rng = np.random.default_rng(0)
    X = rng.random((80, 2))
    y = np.where(X[:, 0] > 0.5, "b", "a")
    clf = BayesianTreeClassifier(method="hmc-dfi", n_iter=8, n_burnin=4, k_warmup=40, h_init=0.05, h_final=0.05,
                                 random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert set(clf.predict(X)) <= {"a", "b"}
    assert np.mean(clf.predict(X) == y) > 0.8


@pytest.mark.parametrize("kw, match", [
    (dict(h_init=0.0), "h_init"), (dict(h_final=-1.0), "h_final"), (dict(alpha=1.0), "alpha"),
    (dict(alpha=0.0), "alpha"), (dict(n_iter=-5), "n_iter"), (dict(n_burnin=-1), "n_burnin"),
    (dict(n_iter=3, n_burnin=3), "n_burnin"), (dict(method="bart"), "method"), (dict(k_warmup=-1), "k_warmup"),
    (dict(warmup_probs=(0.5, 0.5, 0.5)), "warmup_probs"), (dict(n_chains=0), "n_chains"),
    (dict(mu_scale=0.0), "mu_scale"), (dict(sigma_a=-1.0), "sigma_a"),
])
def test_bad_parameters(kw, match):
    X = np.random.default_rng(0).random((10, 2))
    y = np.arange(10.0)
    params = dict(FAST)
    params.update(kw)
    with pytest.raises(ValueError, match=match):
        BayesianTreeRegressor(**params).fit(X, y)


def test_bad_data():
    X = np.random.default_rng(0).random((10, 2))
    with pytest.raises(ValueError, match="NaN|infinity"):
        BayesianTreeRegressor(**FAST).fit(np.where(X > 0.5, np.nan, X), np.arange(10.0))
    with pytest.raises(ValueError, match="NaN|infinity"):
        BayesianTreeRegressor(**FAST).fit(X, np.r_[np.nan, np.arange(9.0)])
    with pytest.raises(ValueError, match="constant"):
        BayesianTreeRegressor(**FAST).fit(X, np.ones(10))
    with pytest.raises(ValueError, match="class"):
        BayesianTreeClassifier(**FAST).fit(X, np.zeros(10))
    reg = BayesianTreeRegressor(**FAST).fit(X, np.arange(10.0))
    with pytest.raises(ValueError, match="features"):
        reg.predict(np.zeros((2, 3)))


def test_hmc_dfi_classifier_runs_on_iris_with_short_warmup():
    """Regression test: short adaptation drives simplex coordinates far out; this crashed with
    ZeroDivisionError in the stick-breaking gradient before the log-space fix."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = BayesianTreeClassifier(method="hmc-dfi", n_iter=16, n_burnin=8, k_warmup=20, h_init=0.01,
                                 h_final=0.01, alpha=0.7, beta=1.0, n_chains=2, random_state=0)
    est.fit(X[::2], y[::2])
    proba = est.predict_proba(X[1::2])
    assert proba.shape == (75, 3) and np.allclose(proba.sum(axis=1), 1.0)
