"""tabular_trees.plotting: interactive demos carry a static picture, tables a Markdown twin (what the PDF shows).

The truths are independent of the code under test: PNG files start with their 8-byte signature and their
IHDR chunk holds the pixel size; pandas' own HTML table (parsed here with a plain regular expression) holds the
cells the Markdown table must show.
"""

from __future__ import annotations

import re
import struct

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from tabular_trees.plotting import InteractiveFigure, interactive_html, markdown_table, static_picture

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG_SIGNATURE and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def _demo_figure():
    fig = make_subplots(rows=1, cols=2)
    t = np.arange(1, 101)
    fig.add_trace(go.Scatter(x=t, y=1 / np.sqrt(t), mode="lines", name="train"), row=1, col=1)
    fig.add_trace(go.Scatter(x=[1, 2, 3], y=[3, 1, 2], mode="markers", name="points",
                             marker={"symbol": "circle-open", "size": 7}), row=1, col=2)
    fig.add_trace(go.Bar(x=[1, 2], y=[1, 2], name="not drawn"), row=1, col=2)
    fig.update_xaxes(type="log", range=[0, 2], row=1, col=1)
    fig.update_layout(title="a demo", sliders=[{"active": 1, "currentvalue": {"prefix": "η = "},
                                                "steps": [{"label": "0.1"}, {"label": "0.3"}]}])
    return fig


def test_static_picture_is_a_png_of_the_figure():
    png = static_picture(_demo_figure(), dpi=50)
    width, height = _png_size(png)
    assert width == 400 and 150 < height < 400  # 8 inches wide at 50 dpi
    assert _png_size(static_picture(go.Figure(), dpi=20))[0] == 160


@pytest.mark.parametrize("bad", [None, "figure", np.zeros(3)])
def test_static_picture_refuses_what_is_no_plotly_figure(bad):
    with pytest.raises(TypeError, match="fig must be a plotly figure"):
        static_picture(bad)


@pytest.mark.parametrize("dpi", [0, 5, 2.5, True])
def test_static_picture_refuses_a_bad_resolution(dpi):
    with pytest.raises(ValueError, match="dpi must be an int"):
        static_picture(go.Figure(), dpi=dpi)


def test_interactive_html_offers_html_and_a_picture(monkeypatch):
    monkeypatch.delenv("TABULAR_TREES_PLOTLY_JS", raising=False)
    demo = interactive_html(_demo_figure(), auto_play=False)
    assert isinstance(demo, InteractiveFigure)
    bundle = demo._repr_mimebundle_()
    assert bundle["text/html"] == demo.data and len(demo.data) > 1_000_000  # plotly.js inline outside the book
    assert bundle["image/png"][:8] == PNG_SIGNATURE
    assert "object>" not in bundle["text/plain"]  # no "<... object>" placeholder where media cannot show HTML
    monkeypatch.setenv("TABULAR_TREES_PLOTLY_JS", "site")
    assert len(interactive_html(_demo_figure()).data) < 100_000  # the book loads plotly.js once per site


def _html_cells(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", html, flags=re.S)]


def test_markdown_table_shows_the_cells_of_pandas_html_table():
    pd.set_option("display.max_colwidth", None)
    frame = pd.DataFrame({"depth": [1, 2, 3], "test MSE": [0.35281, 0.38, 1.5e-05],
                          "claim": ["kernel bank far faster than the authors' code (before)", "b", "c"]}
                         ).set_index("depth")
    text = markdown_table(frame)
    lines = text.splitlines()
    assert lines[0] == "| depth | test MSE | claim |" and lines[1] == "| --- | --- | --- |"
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
    expected = [c for c in _html_cells(frame._repr_html_()) if c]
    assert [c for row in rows for c in row] == [c for c in expected if c not in ("depth", "test MSE", "claim")]
    assert "(before)" in text  # no cell cut short


def test_markdown_table_merges_header_rows_fills_spans_and_escapes():
    columns = pd.MultiIndex.from_product([["A", "B"], ["x", "y"]])
    index = pd.MultiIndex.from_tuples([("g1", 1), ("g1", 2), ("g2", 1)], names=["group", "k"])
    frame = pd.DataFrame(np.arange(12).reshape(3, 4), index=index, columns=columns)
    lines = markdown_table(frame).splitlines()
    assert lines[0] == "| group | k | A / x | A / y | B / x | B / y |"
    assert lines[2:] == ["| g1 | 1 | 0 | 1 | 2 | 3 |", "| g1 | 2 | 4 | 5 | 6 | 7 |", "| g2 | 1 | 8 | 9 | 10 | 11 |"]
    special = markdown_table(pd.DataFrame({"a_b": ["x|y", "$5 *"]}))
    assert "a\\_b" in special and "x\\|y" in special and "\\$5 \\*" in special


def test_markdown_table_keeps_a_stylers_formats():
    styled = pd.DataFrame({"r2": [0.123456, 0.9]}).style.format("{:.3g}")
    assert markdown_table(styled).splitlines()[2:] == ["| 0 | 0.123 |", "| 1 | 0.9 |"]


def test_markdown_table_refuses_what_is_no_table():
    with pytest.raises(TypeError, match="DataFrame or Styler"):
        markdown_table([[1, 2]])


def test_the_book_build_removes_an_inlined_plotly_js(monkeypatch):
    """A chapter executed outside the build (nbval, reused from the jupyter-cache) inlined plotly.js; the book's
    extension removes it from the page, which loads the site's _static/plotly.min.js instead."""
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    from docutils import nodes

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import book_ext

    monkeypatch.delenv("TABULAR_TREES_PLOTLY_JS", raising=False)
    inline = interactive_html(_demo_figure()).data
    assert inline.count("plotly.js v") >= 1 and len(inline) > 1_000_000
    document = nodes.document(None, None)
    document += nodes.raw("", inline, format="html")
    document += nodes.raw("", "<p>plotly.js v1 is mentioned in prose</p>", format="html")
    for fmt, expected_big in (("latex", True), ("html", False)):
        book_ext._strip_inline_plotly_from_outputs(SimpleNamespace(builder=SimpleNamespace(format=fmt)), document, "x")
        raw = list(document.findall(nodes.raw))
        assert (len(raw[0].astext()) > 1_000_000) is expected_big
    assert "Plotly.newPlot" in raw[0].astext() and "<script" in raw[0].astext()
    assert raw[1].astext() == "<p>plotly.js v1 is mentioned in prose</p>"
