"""The estimators' chains honour joblib's active backend: two chains on a local Dask cluster."""

import numpy as np
import pytest

from tabular_trees import bayes

distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")


def _fit(method, n_jobs):
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = 2.0 * (X[:, 0] > 0.5) + 0.1 * rng.normal(size=40)
    sampler = bayes.RJHMCSettings(k_warmup=10, h_init=0.05, h_final=0.05) if method != "cgm" else None
    return bayes.BayesianTreeRegressor(method=method, n_iter=6, n_burnin=3, n_chains=2, n_jobs=n_jobs,
                                       random_state=3, sampler=sampler).fit(X, y)


@pytest.mark.parametrize("method", ["hmc-df", "cgm"])
def test_chains_on_a_local_dask_cluster_match_n_jobs_1(method):
    reference = _fit(method, n_jobs=1)
    # processes=False: scheduler and workers are threads of this process talking over Dask's in-process
    # transport, so nothing listens on the network
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as stream:
            on_dask = _fit(method, n_jobs=2)
    assert len(stream.data) >= 1          # the chains ran as Dask tasks
    for name in ("n_leaves_", "log_posterior_", "moves_", "accepted_"):
        np.testing.assert_array_equal(getattr(on_dask, name), getattr(reference, name))
    rows = np.random.default_rng(1).random((5, 2))
    np.testing.assert_array_equal(on_dask.sample_predictions(rows), reference.sample_predictions(rows))
