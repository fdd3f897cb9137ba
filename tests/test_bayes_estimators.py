"""BayesianTreeRegressor / BayesianTreeClassifier."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from tabular_trees.bayes import (BayesianTreeClassifier, BayesianTreeRegressor, CGMPosterior, CGMPrior, CGMSettings,
                                 RJHMCSettings, TreePrior, cgm_chain)
from tabular_trees.datasets import make_cgm

FAST = dict(n_iter=4, n_burnin=2, sampler=RJHMCSettings(k_warmup=20, h_init=0.1, h_final=0.1))
SHORT = {k: RJHMCSettings(k_warmup=k, h_init=0.05, h_final=0.05) for k in (20, 30, 40)}  # short NUTS runs, h fixed


@pytest.mark.parametrize("Est", [BayesianTreeRegressor, BayesianTreeClassifier])
@pytest.mark.parametrize("method", ["hmc-df", "cgm"])
def test_check_estimator(Est, method):
    kw = FAST if method != "cgm" else dict(FAST, sampler=None)  # an RJHMCSettings does not belong to CGM
    check_estimator(Est(method=method, random_state=0, **kw))


def test_fixed_signature_defaults():
    r = BayesianTreeRegressor()
    assert (r.method, r.n_iter, r.n_burnin, r.random_state) == ("hmc-df", 1000, 500, None)
    assert BayesianTreeClassifier().method == "hmc-df"


@pytest.mark.parametrize("method", ["hmc-df", "hmc-dfi", "cgm"])
def test_same_seed_identical_and_traces(method):
    Xtr, ytr, Xte, _ = make_cgm(n_train=120, n_test=30, random_state=1)
    kw = dict(method=method, n_iter=6, n_burnin=3, sampler=SHORT[30] if method != "cgm" else None, random_state=3)
    a = BayesianTreeRegressor(**kw).fit(Xtr, ytr)
    b = BayesianTreeRegressor(**kw).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.predict(Xte), b.predict(Xte))
    assert a.n_leaves_.shape == (1, 6) and a.log_posterior_.shape == (1, 6)
    assert 0.0 <= a.acceptance_["all"] <= 1.0
    assert len(a.trees_) == 3


def test_parallel_chains_equal_sequential_chains():
    Xtr, ytr, Xte, _ = make_cgm(n_train=100, n_test=20, random_state=2)
    kw = dict(method="hmc-dfi", n_iter=4, n_burnin=2, sampler=SHORT[20], random_state=5,
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


def test_cgm_method_honours_a_cgm_sampler():
    """method="cgm" runs its chains with the CGMSettings passed (the same chain as cgm_chain with them), and
    sampler=None means CGMSettings()."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = np.where(X[:, 0] > 0.5, 1.0, 0.0) + 0.1 * rng.normal(size=40)
    settings = CGMSettings(move_probs=(0.4, 0.4, 0.1, 0.1))
    kw = dict(method="cgm", n_iter=60, n_burnin=30, random_state=np.random.SeedSequence(3), standardize_y=False)
    honoured = BayesianTreeRegressor(sampler=settings, **kw).fit(X, y)
    default = BayesianTreeRegressor(**kw).fit(X, y)
    assert not np.array_equal(honoured.moves_, default.moves_)
    np.testing.assert_array_equal(default.moves_, BayesianTreeRegressor(sampler=CGMSettings(), **kw).fit(X, y).moves_)
    post = CGMPosterior((X - X.min(0)) / np.ptp(X, 0), y, "regression", prior=CGMPrior(alpha=0.45, beta=2.5))
    direct = cgm_chain(post, n_iter=60, n_burnin=30, seed=np.random.default_rng(np.random.SeedSequence(3).spawn(1)[0]),
                       sampler=settings)
    np.testing.assert_array_equal(honoured.n_leaves_[0], direct.n_leaves)
    np.testing.assert_array_equal(honoured.moves_[0], direct.move)


@pytest.mark.parametrize("method, sampler, match", [
    ("cgm", RJHMCSettings(k_warmup=10), "RJHMCSettings, which does not belong to method='cgm'"),
    ("hmc-df", CGMSettings(), "CGMSettings, which does not belong to method='hmc-df'"),
    ("hmc-dfi", CGMSettings(), "CGMSettings, which does not belong to method='hmc-dfi'"),
])
def test_a_sampler_of_the_other_method_is_refused(method, sampler, match):
    X = np.random.default_rng(0).random((10, 2))
    for Est, y in ((BayesianTreeRegressor, np.arange(10.0)), (BayesianTreeClassifier, np.arange(10) % 2)):
        with pytest.raises(TypeError, match=match):
            Est(method=method, n_iter=4, n_burnin=2, sampler=sampler).fit(X, y)


def test_fit_observer_sees_every_iteration_of_every_chain():
    X = np.random.default_rng(0).random((20, 2))
    steps = []
    reg = BayesianTreeRegressor(random_state=0, n_chains=2, **FAST).fit(X, X[:, 0], observer=steps.append)
    assert [s.iteration for s in steps] == list(range(4)) * 2
    assert [s.accepted for s in steps] == reg.accepted_.ravel().tolist()
    with pytest.raises(ValueError, match="n_jobs=1"):
        BayesianTreeRegressor(random_state=0, n_chains=2, n_jobs=2, **FAST).fit(X, X[:, 0], observer=print)
    with pytest.raises(TypeError, match="observer"):
        BayesianTreeRegressor(random_state=0, **FAST).fit(X, X[:, 0], observer=3)


def test_progress_bar_runs():
    pytest.importorskip("tqdm")
    X = np.random.default_rng(0).random((20, 2))
    reg = BayesianTreeRegressor(progress=True, random_state=0, **FAST).fit(X, X[:, 0])
    assert reg.n_leaves_.shape == (1, 4)


def _two_labels(n):
    """``n`` uniform points in the unit square labelled "b" right of x0 = 0.5, "a" left of it."""
    X = np.random.default_rng(0).random((n, 2))
    return X, np.where(X[:, 0] > 0.5, "b", "a")


def test_classifier_probabilities():
    X, y = _two_labels(80)
    clf = BayesianTreeClassifier(method="hmc-dfi", n_iter=8, n_burnin=4, sampler=SHORT[40],
                                 random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert set(clf.predict(X)) <= {"a", "b"}
    assert np.mean(clf.predict(X) == y) > 0.8


@pytest.mark.parametrize("make, match", [
    (lambda: dict(sampler=RJHMCSettings(h_init=0.0)), "h_init"),
    (lambda: dict(sampler=RJHMCSettings(h_final=-1.0)), "h_final"),
    (lambda: dict(prior=TreePrior(alpha=1.0)), "alpha"), (lambda: dict(prior=TreePrior(alpha=0.0)), "alpha"),
    (lambda: dict(n_iter=-5), "n_iter"), (lambda: dict(n_burnin=-1), "n_burnin"),
    (lambda: dict(n_iter=3, n_burnin=3), "n_burnin"), (lambda: dict(method="bart"), "method"),
    (lambda: dict(sampler=RJHMCSettings(k_warmup=-1)), "k_warmup"),
    (lambda: dict(sampler=RJHMCSettings(warmup_probs=(0.5, 0.5, 0.5))), "warmup_probs"),
    (lambda: dict(sampler=RJHMCSettings(prune_start="positional")), "prune_start"),
    (lambda: dict(n_chains=0), "n_chains"),
    (lambda: dict(prior=TreePrior(mu_scale=0.0)), "mu_scale"), (lambda: dict(prior=TreePrior(sigma_a=-1.0)), "sigma_a"),
])
def test_bad_parameters(make, match):
    X = np.random.default_rng(0).random((10, 2))
    y = np.arange(10.0)
    with pytest.raises(ValueError, match=match):
        params = dict(FAST)
        params.update(make())  # a bad record fails when it is made, a bad plain parameter in fit
        BayesianTreeRegressor(**params).fit(X, y)


@pytest.mark.parametrize("kw, match", [(dict(prior=dict(alpha=0.5)), "prior must be a TreePrior"),
                                       (dict(sampler=(500, 0.01)), "sampler must be a RJHMCSettings or CGMSettings"),
                                       (dict(prior=RJHMCSettings()), "prior must be a TreePrior")])
def test_records_of_the_wrong_type_are_refused(kw, match):
    X = np.random.default_rng(0).random((10, 2))
    with pytest.raises(TypeError, match=match):
        BayesianTreeRegressor(**{**FAST, **kw}).fit(X, np.arange(10.0))


def test_records_clone_get_and_set_params():
    """The records are ordinary parameters: cloned, read and replaced like any other, and a fit with
    a record equals a fit with the same values spelled out in another, equal record."""
    from sklearn.base import clone

    Xtr, ytr, Xte, _ = make_cgm(n_train=80, n_test=10, random_state=3)
    prior = TreePrior(alpha=0.6, beta=2.0, mu_scale=2.0)
    est = BayesianTreeRegressor(n_iter=4, n_burnin=2, random_state=0, prior=prior, sampler=FAST["sampler"])
    assert est.get_params()["prior"] is prior and est.get_params()["sampler"] is FAST["sampler"]
    twin = clone(est)
    assert twin.get_params()["prior"] == prior and twin.get_params()["sampler"] == FAST["sampler"]
    np.testing.assert_array_equal(est.fit(Xtr, ytr).predict(Xte), twin.fit(Xtr, ytr).predict(Xte))
    other = clone(est).set_params(prior=TreePrior(alpha=0.6, beta=2.0, mu_scale=2.0))
    np.testing.assert_array_equal(other.fit(Xtr, ytr).predict(Xte), est.predict(Xte))
    changed = clone(est).set_params(prior=TreePrior(alpha=0.6, beta=2.0, mu_scale=0.1)).fit(Xtr, ytr)
    assert not np.array_equal(changed.predict(Xte), est.predict(Xte))


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
    est = BayesianTreeClassifier(method="hmc-dfi", n_iter=16, n_burnin=8,
                                 sampler=RJHMCSettings(k_warmup=20, h_init=0.01, h_final=0.01),
                                 prior=TreePrior(alpha=0.7, beta=1.0), n_chains=2, random_state=0)
    est.fit(X[::2], y[::2])
    proba = est.predict_proba(X[1::2])
    assert proba.shape == (75, 3) and np.allclose(proba.sum(axis=1), 1.0)


# ---------------------------------------------------------------------------- scale, validation, per-sample API
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _scale_data():
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0) + 0.1 * rng.normal(size=40)
    return X, y


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(["hmc-df", "hmc-dfi", "cgm"]),
       log_scale=st.floats(-3.0, 4.0), shift=st.floats(-1e4, 1e4))
def test_predictions_are_equivariant_under_shifting_and_rescaling_y(method, log_scale, shift):
    """standardize_y=True: fitting c*y + b gives c*prediction + b (same seed), c in 1e-3..1e4, |b| <= 1e4.

    The chains see (y - mean)/std snapped to a 2^-20 grid, identical for both targets unless one of
    the 40 values lies within rounding (~|b|/(c std y) * 1e-16 <= 1e-9) of a grid point, a chance
    below 1e-3 per fit. The outputs then differ only by the rounding of the final map back
    (~1e-16 |b| / c <= 1e-9 std(y)), so the tolerance is 1e-6 std(y)."""
    X, y = _scale_data()
    c = 10.0 ** log_scale
    kw = dict(method=method, n_iter=6, n_burnin=3, sampler=SHORT[20], random_state=1)
    if method == "cgm":
        kw = dict(method=method, n_iter=200, n_burnin=100, random_state=1)
    base = BayesianTreeRegressor(**kw).fit(X, y).predict(X)
    scaled = BayesianTreeRegressor(**kw).fit(X, c * y + shift).predict(X)
    np.testing.assert_allclose((scaled - shift) / c, base, rtol=0, atol=1e-6 * np.std(y))


def test_standardize_y_makes_a_large_offset_harmless_and_false_keeps_the_raw_scale():
    X, y = _scale_data()
    kw = dict(method="hmc-df", n_iter=12, n_burnin=6, sampler=SHORT[40], random_state=0)
    std = BayesianTreeRegressor(**kw).fit(X, y + 1000.0)
    r2 = 1 - np.mean((std.predict(X) - y - 1000.0) ** 2) / np.var(y)
    assert r2 > 0.5
    assert std.y_mean_ == pytest.approx(np.mean(y) + 1000.0) and std.y_scale_ == pytest.approx(np.std(y))
    raw = BayesianTreeRegressor(standardize_y=False, **kw).fit(X, y)
    assert (raw.y_mean_, raw.y_scale_) == (0.0, 1.0)
    with pytest.raises(TypeError, match="standardize_y"):
        BayesianTreeRegressor(standardize_y="yes", **FAST).fit(X, y)


def test_dataframe_column_names_are_checked():
    pd = pytest.importorskip("pandas")
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    X, y = _scale_data()
    df = pd.DataFrame(X, columns=["a", "b"])
    for est in (BayesianTreeRegressor(random_state=0, **FAST), BayesianTreeClassifier(random_state=0, **FAST)):
        target = y if isinstance(est, BayesianTreeRegressor) else (y > 0).astype(int)
        est.fit(df, target)
        with pytest.raises(ValueError, match="feature names"):
            est.predict(df[["b", "a"]])
        check_dataframe_column_names_consistency(type(est).__name__, est)


@pytest.mark.parametrize("method", ["hmc-dfi", "cgm"])
def test_per_sample_predictions_average_to_predict(method):
    Xtr, ytr, Xte, _ = make_cgm(n_train=100, n_test=20, random_state=2)
    kw = dict(method=method, n_iter=6, n_burnin=3, sampler=SHORT[20], random_state=0,
              n_chains=2)
    if method == "cgm":
        kw.update(n_iter=60, n_burnin=30, sampler=None)
    reg = BayesianTreeRegressor(**kw).fit(Xtr, ytr)
    S = reg.sample_predictions(Xte)
    assert S.shape == (len(reg.trees_), 20)
    np.testing.assert_allclose(S.mean(axis=0), reg.predict(Xte), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(reg.sample_predictions(Xte, sample=3), S[3])
    W = reg.leaf_weights(Xte, 3)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    t = reg.trees_[3]
    np.testing.assert_allclose(W @ t.value[t.leaves()] * reg.y_scale_ + reg.y_mean_, S[3])
    ids = reg.apply(Xte, 3)
    assert set(ids) <= set(t.leaves())
    if method == "cgm":  # hard trees: the leaf reached is the hard route
        Xs = (Xte - reg.x_min_) / reg.x_range_
        hard = t.copy()
        hard.value = np.arange(t.n_nodes, dtype=float)
        np.testing.assert_array_equal(ids, predict_hard_tree(hard, Xs).astype(int))
    with pytest.raises(ValueError, match="sample"):
        reg.leaf_weights(Xte, len(reg.trees_))
    with pytest.raises(TypeError, match="sample"):
        reg.sample_predictions(Xte, sample=1.5)


def test_classifier_per_sample_probabilities():
    X, y = _two_labels(60)
    clf = BayesianTreeClassifier(method="hmc-df", n_iter=6, n_burnin=3, sampler=SHORT[20],
                                 random_state=0).fit(X, y)
    P = clf.sample_predict_proba(X)
    assert P.shape == (3, 60, 2)
    np.testing.assert_allclose(P.sum(axis=2), 1.0)
    avg = P.mean(axis=0)
    np.testing.assert_allclose(avg / avg.sum(axis=1, keepdims=True), clf.predict_proba(X))


from tabular_trees.bayes import predict_hard_tree  # noqa: E402
