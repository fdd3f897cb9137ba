"""The RJHMC reproduction script: runs split into batches (of chains, methods, datasets) merge into the full run.

The recorded paper-protocol results of chapter 10 are assembled this way, so the merge must be exact.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the scripts import their shared helpers (harness.py) from that folder
    sys.path.insert(0, str(BENCHMARKS))

from harness import load_script  # noqa: E402


@pytest.fixture(scope="module")
def reproduce():
    return load_script("reproduce_rjhmc")


def _entries(res):
    out = {("table1", m): r for m, r in res["table1"].items()}
    out.update({(d, m): r for d, by_m in res["table2"].items() for m, r in by_m.items()})
    return {k: (r["chains"], r["summary"], r["paper_summary"]) for k, r in out.items()}


def test_batches_of_chains_methods_and_datasets_merge_into_the_full_run(reproduce, tmp_path):
    quick = ["--quick", "--n-jobs", "1", "--methods"]
    reproduce.main(quick + ["cgm,hmc-df", "--datasets", "iris", "--output", str(tmp_path / "full")])
    reproduce.main(quick + ["cgm", "--datasets", "iris", "--output", str(tmp_path / "cgm")])
    reproduce.main(quick + ["hmc-df", "--datasets", "", "--chains", "1:2", "--output", str(tmp_path / "df_t1_1")])
    reproduce.main(quick + ["hmc-df", "--datasets", "", "--chains", "0:1", "--output", str(tmp_path / "df_t1_0")])
    reproduce.main(quick + ["hmc-df", "--datasets", "iris", "--skip-table1", "--output", str(tmp_path / "df_t2")])
    parts = [str(tmp_path / f"{n}.json") for n in ("df_t1_1", "cgm", "df_t2", "df_t1_0")]
    reproduce.main(["--merge", *parts, "--output", str(tmp_path / "merged")])

    full = json.loads((tmp_path / "full.json").read_text())
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert _entries(merged) == _entries(full)
    assert merged["protocol"] == full["protocol"] and merged["first_chain"] == 0
    a, b = np.load(tmp_path / "full_traces.npz"), np.load(tmp_path / "merged_traces.npz")
    assert sorted(a.files) == sorted(b.files)
    for key in a.files:
        np.testing.assert_array_equal(a[key], b[key])


def test_merge_refuses_gaps_and_overlaps(reproduce, tmp_path):
    quick = ["--quick", "--n-jobs", "1", "--methods", "cgm", "--datasets", ""]
    reproduce.main(quick + ["--chains", "0:1", "--output", str(tmp_path / "a")])
    reproduce.main(quick + ["--chains", "2:3", "--output", str(tmp_path / "c")])
    with pytest.raises(SystemExit, match="contiguous"):
        reproduce.main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "c.json"), "--output", str(tmp_path / "m")])
    with pytest.raises(SystemExit, match="contiguous"):
        reproduce.main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "a.json"), "--output", str(tmp_path / "m")])
    # files that disagree on a protocol setting (other than the number of chains) are refused too
    other = json.loads((tmp_path / "c.json").read_text())
    other["protocol"]["k_warmup"] += 1
    (tmp_path / "c.json").write_text(json.dumps(other))
    with pytest.raises(SystemExit, match="disagree on the protocol's k_warmup"):
        reproduce.main(["--merge", str(tmp_path / "a.json"), str(tmp_path / "c.json"), "--output", str(tmp_path / "m")])


def test_cgm_on_the_real_data_runs_the_protocols_real_data_length(reproduce):
    proto = dict(reproduce.PROTOCOLS["quick"], n_chains=1, cgm_real_iter=60, cgm_real_burnin=30)
    data = reproduce.real_datasets(["iris"])["iris"]
    run = reproduce.fit("cgm", "iris", "classification", data, proto, 1, 0)
    assert (run["settings"]["n_iter"], run["settings"]["n_burnin"]) == (60, 30)
    assert run["traces"]["n_leaves"].shape == (1, 60)
    assert run["traces"]["test_error_per_sample"].shape == (1, 30)
    paper = reproduce.PROTOCOLS["paper"]  # the authors' results script reads 1000 iterations, keeping the last 500
    assert (paper["cgm_real_iter"], paper["cgm_real_burnin"]) == (1000, 500)


def test_log_leaves_writes_the_chains_n_leaves_and_collect_leaves_joins_partial_chains(reproduce, tmp_path):
    """--log-leaves: line i of the log is the tree size after iteration i - 1 of the very same chain."""
    reproduce.main(["--quick", "--datasets", "", "--methods", "hmc-df", "--chains", "1:2", "--n-jobs", "1",
                    "--prune-start", "reference", "--log-leaves", str(tmp_path)])
    logged = np.loadtxt(tmp_path / "leaves_hmc-df_1.txt", ndmin=2)
    full = np.load(tmp_path / "quick_hmc-df_1_traces.npz")["table1/cgm/hmc-df/n_leaves"][0]
    assert logged.shape == (len(full), 2) and logged[0, 0] == 2  # the chains start from a stump
    np.testing.assert_array_equal(logged[1:, 0], full[:-1])
    assert np.all(np.diff(logged[:, 1]) >= 0)  # seconds since start
    # a chain stopped after 6 iterations: its log has 7 lines, the last iteration unfinished
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "leaves_hmc-dfi_0.txt").write_text("".join(f"{int(n)} {t}\n" for n, t in logged[:7]))
    for f in tmp_path.glob("quick_hmc-df_1*"):
        (partial / f.name).write_bytes(f.read_bytes())
    reproduce.main(["--quick", "--prune-start", "reference", "--collect-leaves", str(partial), "--machine", "test",
                    "--output", str(partial / "run")])
    res = json.loads((partial / "run.json").read_text())
    (df,), (dfi,) = res["chains"]["hmc-df"], res["chains"]["hmc-dfi"]
    assert df["complete"] and df["chain"] == 1 and df["n_leaves"] == full.tolist()
    assert not dfi["complete"] and dfi["n_leaves"] == logged[1:7, 0].astype(int).tolist()
    assert res["protocol"]["prune_start"] == "reference" and res["protocol"]["n_iter"] == 16
    with pytest.raises(SystemExit, match="one HMC chain"):
        reproduce.main(["--quick", "--datasets", "", "--methods", "hmc-df,hmc-dfi", "--chains", "0:1", "--n-jobs", "1",
                        "--log-leaves", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="--machine"):
        reproduce.main(["--quick", "--collect-leaves", str(partial), "--output", str(partial / "run2")])


def test_merge_refuses_batches_run_with_different_sampler_variants(reproduce, tmp_path):
    """A variant (here the positional prune start) is part of the protocol: its batches never merge with the
    paper's sampler's."""
    quick = ["--quick", "--n-jobs", "1", "--methods", "cgm", "--datasets", ""]
    reproduce.main(quick + ["--chains", "0:1", "--output", str(tmp_path / "paper")])
    reproduce.main(quick + ["--chains", "1:2", "--prune-start", "reference", "--output", str(tmp_path / "ref")])
    assert json.loads((tmp_path / "ref.json").read_text())["protocol"]["prune_start"] == "reference"
    with pytest.raises(SystemExit, match="prune_start"):
        reproduce.main(["--merge", str(tmp_path / "paper.json"), str(tmp_path / "ref.json"),
                        "--output", str(tmp_path / "mixed")])
