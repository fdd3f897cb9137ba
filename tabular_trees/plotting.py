"""How the course's figures look and travel: one call at the top of a chapter, one for interactive demos.

Importing this module needs nothing beyond the core dependencies; matplotlib, pandas and plotly (the ``book``
extra) are imported only when a function needs them.
"""

from __future__ import annotations

import os

__all__ = ["BOOK_RC", "use_book_style", "markdown_table", "interactive_html", "static_picture", "InteractiveFigure"]

# Legible figures at the book's text width (about 16 cm): 12 pt text, slightly smaller legends and ticks.
BOOK_RC = {"font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12, "legend.fontsize": 10,
           "xtick.labelsize": 11, "ytick.labelsize": 11}


def use_book_style(*, precision=4):
    """Make a notebook draw and print as the book does.

    - Figures render inline in Jupyter, Colab and the book build **whatever backend the environment selects**
      (``MPLBACKEND=Agg`` would otherwise hide every figure): the same as ``%matplotlib inline``.
    - Fonts are legible at the book's text width (``BOOK_RC``).
    - pandas prints ``precision`` decimals, so tables show what the text discusses, and every cell in full.
    - DataFrames and Stylers also display as a Markdown table (:func:`markdown_table`): Jupyter and the HTML book
      show pandas' HTML table, media without HTML (the PDF of the book) a real table instead of wrapped text.

    - Two notices that third-party packages print *when they are imported* and that concern no reader's code are
      silenced: tqdm's "IProgress not found" (the book shows no progress bars) and the pending deprecation of
      matplotlib's ``Colormap.set_bad`` that shap triggers. Call this before importing them.

    Outside IPython only the fonts, the notices and the pandas option are set.

    Parameters
    ----------
    precision : int, default=4
        Decimals that pandas shows in tables, from 0 to 15.

    Examples
    --------
    >>> from tabular_trees.plotting import use_book_style
    >>> use_book_style(precision=3)
    >>> import matplotlib.pyplot as plt
    >>> plt.rcParams["font.size"]
    12.0
    """
    if isinstance(precision, bool) or not isinstance(precision, int) or not 0 <= precision <= 15:
        raise ValueError(f"precision must be an int from 0 to 15 (decimals pandas shows), got {precision!r}.")
    import warnings

    import matplotlib

    warnings.filterwarnings("ignore", message="IProgress not found")
    warnings.filterwarnings("ignore", message="The set_bad function", category=PendingDeprecationWarning)
    try:  # the inline backend wins over MPLBACKEND, as %matplotlib inline does
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None and getattr(shell, "kernel", None) is not None:
        shell.run_line_magic("matplotlib", "inline")
    matplotlib.rcParams.update(BOOK_RC)
    try:
        import pandas as pd
    except ImportError:
        return
    pd.set_option("display.precision", precision)
    # A table cell is never cut short ("(be...") in a notebook, the HTML book or its PDF.
    pd.set_option("display.max_colwidth", None)
    if shell is not None and hasattr(shell, "display_formatter"):
        from pandas.io.formats.style import Styler

        markdown = shell.display_formatter.formatters["text/markdown"]
        markdown.for_type(pd.DataFrame, markdown_table)
        markdown.for_type(Styler, markdown_table)


class _TableCells:
    """Rows of cell texts of an HTML table (``<th>``/``<td>``, with rowspan and colspan filled in)."""

    def __init__(self, html):
        from html.parser import HTMLParser

        self.head, self.body = [], []
        rows, spans = {"head": self.head, "body": self.body}, {}
        state = {"section": "body", "row": None, "cell": None, "span": (1, 1)}

        def end_cell():
            if state["cell"] is None:
                return
            row, text = state["row"], " ".join("".join(state["cell"]).split())
            rowspan, colspan = state["span"]
            for _ in range(colspan):
                while len(row) in spans.get(state["section"], {}):  # a cell spanning down from a row above
                    column = len(row)
                    left, carried = spans[state["section"]][column]
                    row.append(carried)
                    if left <= 1:
                        del spans[state["section"]][column]
                    else:
                        spans[state["section"]][column] = (left - 1, carried)
                if rowspan > 1:
                    spans.setdefault(state["section"], {})[len(row)] = (rowspan - 1, text)
                row.append(text)
            state["cell"] = None

        class Parser(HTMLParser):
            def handle_starttag(self, tag, attrs):
                attrs = dict(attrs)
                if tag in ("thead", "tbody"):
                    state["section"] = "head" if tag == "thead" else "body"
                elif tag == "tr":
                    state["row"] = []
                elif tag in ("th", "td") and state["row"] is not None:
                    end_cell()
                    state["cell"] = []
                    state["span"] = (int(attrs.get("rowspan") or 1), int(attrs.get("colspan") or 1))

            def handle_endtag(self, tag):
                if tag in ("th", "td"):
                    end_cell()
                elif tag == "tr" and state["row"] is not None:
                    end_cell()
                    pending = spans.get(state["section"], {})
                    for column in sorted(c for c in pending if c >= len(state["row"])):
                        left, carried = pending[column]
                        state["row"].append(carried)
                        if left <= 1:
                            del pending[column]
                        else:
                            pending[column] = (left - 1, carried)
                    rows[state["section"]].append(state["row"])
                    state["row"] = None

            def handle_data(self, data):
                if state["cell"] is not None:
                    state["cell"].append(data)

        Parser(convert_charrefs=True).feed(html)


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>$|#~^"})


def markdown_table(table):
    """A pandas DataFrame or Styler as a Markdown (pipe) table with the cells pandas' own HTML table shows.

    The same rows, columns, number formats and truncation as the table a notebook shows (read from its
    ``_repr_html_``); several header rows (an index name, column levels) merge into one, joined by " / ".
    ``use_book_style`` registers it as the ``text/markdown`` display of DataFrames and Stylers, which the PDF of
    the book typesets as a table.

    Parameters
    ----------
    table : pandas.DataFrame or pandas.io.formats.style.Styler
        The table to convert.

    Returns
    -------
    str
        The Markdown table; Markdown's special characters in cells are escaped.

    Examples
    --------
    >>> import pandas as pd
    >>> from tabular_trees.plotting import markdown_table
    >>> print(markdown_table(pd.DataFrame({"depth": [1, 2], "test MSE": [0.5, 0.25]}).set_index("depth")))
    | depth | test MSE |
    | --- | --- |
    | 1 | 0.50 |
    | 2 | 0.25 |
    """
    if not (hasattr(table, "_repr_html_") and hasattr(table, "to_html")):
        raise TypeError(f"table must be a pandas DataFrame or Styler, got {type(table).__name__}.")
    html = table._repr_html_() or table.to_html()  # a DataFrame's is None when notebook_repr_html is off
    cells = _TableCells(html)
    width = max((len(row) for row in cells.head + cells.body), default=0)
    if width == 0:
        return ""

    def padded(row):
        return [*row, *[""] * (width - len(row))]

    header = [""] * width
    for row in cells.head:
        header = [" / ".join(t for t in (old, new) if t) if new != old else old for old, new in zip(header, padded(row))]
    lines = ["| " + " | ".join(c.translate(_MARKDOWN_SPECIAL) for c in header) + " |",
             "| " + " | ".join(["---"] * width) + " |"]
    lines += ["| " + " | ".join(c.translate(_MARKDOWN_SPECIAL) for c in padded(row)) + " |" for row in cells.body]
    return "\n".join(lines)


class InteractiveFigure:
    """An interactive Plotly figure with a static picture for media that cannot run JavaScript.

    Jupyter, Colab and the HTML book show the interactive HTML (``text/html``); the PDF of the book and any other
    front end that cannot run JavaScript shows the PNG of the figure's starting position (``image/png``), drawn
    with matplotlib. Returned by :func:`interactive_html`; display it as the last expression of a cell or with
    ``IPython.display.display``.

    Attributes
    ----------
    data : str
        The HTML of the interactive figure.
    png : bytes
        The static picture (PNG).
    """

    def __init__(self, html, png):
        self.data = html
        self.png = png

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.data, "image/png": self.png,
                "text/plain": "Interactive figure (its starting position is shown as a static picture)"}

    def __repr__(self):
        return f"InteractiveFigure(html={len(self.data):,} characters, png={len(self.png):,} bytes)"


_DASHES = {"dash": "--", "dot": ":", "dashdot": "-.", "longdash": (0, (8, 3)), "longdashdot": (0, (8, 3, 2, 3))}
_MARKERS = {"circle": "o", "square": "s", "diamond": "D", "cross": "P", "x": "x", "triangle-up": "^",
            "triangle-down": "v", "star": "*"}


def _axis_title(axis):
    title = getattr(axis, "title", None)
    return (getattr(title, "text", None) or "") if title is not None else ""


def static_picture(fig, *, dpi=150):
    """A PNG of a Plotly figure's starting position, drawn with matplotlib (no browser, no network).

    Scatter traces (lines and markers, with their colours, dashes, widths, symbols and opacity), subplots placed
    by their axis domains, linear and log axes with their ranges and titles, the figure's title, the legend and,
    under the picture, the starting value of each slider. Traces of other types are left out of the picture.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure as it appears before any slider or button is used.
    dpi : int, default=150
        Resolution of the PNG.

    Returns
    -------
    bytes
        The PNG file.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from tabular_trees.plotting import static_picture
    >>> static_picture(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))[:4]
    b'\\x89PNG'
    """
    import io

    from matplotlib.figure import Figure

    if not hasattr(fig, "to_html"):
        raise TypeError(f"fig must be a plotly figure (with a to_html method), got {type(fig).__name__}.")
    if isinstance(dpi, bool) or not isinstance(dpi, int) or dpi < 10:
        raise ValueError(f"dpi must be an int of at least 10, got {dpi!r}.")
    layout = fig.layout
    colorway = list(layout.colorway or (layout.template.layout.colorway if layout.template else None)
                    or ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"])
    width_in = 8.0
    plot_height = (layout.height or 450) - (layout.margin.t or 80) - (layout.margin.b or 80)
    height_in = min(max(width_in * max(plot_height, 250) / 800 + 1.3, 3.6), 6.5)
    figure = Figure(figsize=(width_in, height_in), dpi=dpi)
    left, right, bottom, top = 0.09, 0.98, 0.2, 0.86
    axes = {}

    def axes_for(xref, yref):
        key = (xref or "x", yref or "y")
        if key not in axes:
            xaxis = layout["xaxis" + key[0][1:]]
            yaxis = layout["yaxis" + key[1][1:]]
            x0, x1 = xaxis.domain or (0, 1)
            y0, y1 = yaxis.domain or (0, 1)
            gap = 0.06 if x0 > 0 else 0.0
            ax = figure.add_axes([left + (right - left) * x0 + gap, bottom + (top - bottom) * y0,
                                  (right - left) * (x1 - x0) - gap, (top - bottom) * (y1 - y0)])
            for axis, set_scale, set_lim, set_label in ((xaxis, ax.set_xscale, ax.set_xlim, ax.set_xlabel),
                                                        (yaxis, ax.set_yscale, ax.set_ylim, ax.set_ylabel)):
                log = axis.type == "log"
                if log:
                    set_scale("log")
                if axis.range is not None:
                    lo, hi = axis.range
                    set_lim(*((10**lo, 10**hi) if log else (lo, hi)))
                set_label(_axis_title(axis))
            ax.grid(alpha=0.3)
            axes[key] = ax
        return axes[key]

    for i, trace in enumerate(fig.data):
        if trace.type != "scatter" or trace.visible is False:
            continue
        ax = axes_for(trace.xaxis, trace.yaxis)
        mode = trace.mode or ("lines" if len(trace.x or ()) > 20 else "lines+markers")
        line, marker = trace.line, trace.marker
        color = (line.color if "lines" in mode else None) or (marker.color if isinstance(marker.color, str)
                                                               else None) or line.color or colorway[i % len(colorway)]
        symbol = str(marker.symbol or "circle")
        kwargs = {"color": color, "alpha": marker.opacity if marker.opacity is not None else trace.opacity,
                  "label": trace.name if trace.showlegend is not False and trace.name else None}
        if "lines" in mode:
            kwargs.update(linestyle=_DASHES.get(line.dash, "-"), linewidth=0.75 * (line.width or 2))
        else:
            kwargs["linestyle"] = "none"
        if "markers" in mode:
            kwargs.update(marker=_MARKERS.get(symbol.replace("-open", ""), "o"),
                          markersize=0.75 * (marker.size or 6),
                          fillstyle="none" if symbol.endswith("-open") else "full")
        ax.plot(list(trace.x), list(trace.y), **kwargs)

    title = getattr(layout.title, "text", None) if layout.title is not None else None
    if title:
        figure.suptitle(title, fontsize=10, y=0.985, wrap=True)
    handles, labels = [], []
    for ax in axes.values():
        h, lab = ax.get_legend_handles_labels()
        handles += h
        labels += lab
    if handles:
        figure.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.935), ncol=min(len(labels), 3),
                      fontsize=8, frameon=False)
        top_shift = 0.045 * ((len(labels) + 2) // 3)
        for ax in axes.values():
            x0, y0, w, h = ax.get_position().bounds
            ax.set_position([x0, y0, w, h - top_shift])
    starts = []
    for slider in layout.sliders or ():
        steps = slider.steps or ()
        if steps:
            active = slider.active or 0
            prefix = getattr(slider.currentvalue, "prefix", None) or ""
            starts.append(f"{prefix}{steps[active].label}")
    note = "Static picture of an interactive figure at its starting position"
    figure.text(0.5, 0.015, note + (": " + "; ".join(starts) if starts else "") + ".", ha="center", va="bottom",
                fontsize=8, style="italic", wrap=True)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def interactive_html(fig, **to_html_kwargs):
    """A Plotly figure as HTML that works with no kernel and no network, with a static picture for the PDF.

    In Jupyter or Colab the HTML carries its own copy of plotly.js (so it works offline); in the built book,
    which loads one copy of plotly.js per site (``TABULAR_TREES_PLOTLY_JS=site``, set by the book's Sphinx
    extension, which also removes a copy that an execution outside the build inlined), it does not repeat it on
    every page. Media that cannot run JavaScript (the PDF) show the figure's starting position as a picture
    (:func:`static_picture`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, with its frames and sliders.
    **to_html_kwargs
        Passed on to ``fig.to_html`` (for example ``auto_play=False``).

    Returns
    -------
    InteractiveFigure
        Display it as the last expression of a cell (or with ``display``); its ``data`` is the HTML.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from tabular_trees.plotting import interactive_html
    >>> demo = interactive_html(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))
    >>> "plotly" in demo.data, sorted(demo._repr_mimebundle_())
    (True, ['image/png', 'text/html', 'text/plain'])
    """
    if not hasattr(fig, "to_html"):
        raise TypeError(f"fig must be a plotly figure (with a to_html method), got {type(fig).__name__}.")
    if "full_html" in to_html_kwargs or "include_plotlyjs" in to_html_kwargs:
        raise ValueError("interactive_html chooses full_html and include_plotlyjs itself; do not pass them.")
    inline = os.environ.get("TABULAR_TREES_PLOTLY_JS") != "site"
    return InteractiveFigure(fig.to_html(full_html=False, include_plotlyjs=inline, **to_html_kwargs),
                             static_picture(fig))
