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


def test_reproduce_script_runs_the_protocol_on_dask(tmp_path):
    import json
    import sys
    from pathlib import Path

    benchmarks = Path(__file__).resolve().parents[1] / "benchmarks"
    if str(benchmarks) not in sys.path:
        sys.path.insert(0, str(benchmarks))
    from harness import load_script

    reproduce = load_script("reproduce_rjhmc")
    quick = ["--quick", "--methods", "hmc-df", "--datasets", ""]
    reproduce.main(quick + ["--n-jobs", "1", "--output", str(tmp_path / "local")])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        reproduce.main(quick + ["--n-jobs", "2", "--dask", cluster.scheduler_address, "--output", str(tmp_path / "dask")])
    local, dask = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "dask"))
    assert "dask=" in dask["machine"]
    chains = [[{k: v for k, v in c.items() if k != "seconds"} for c in r["table1"]["hmc-df"]["chains"]]
              for r in (local, dask)]
    assert chains[0] == chains[1]
