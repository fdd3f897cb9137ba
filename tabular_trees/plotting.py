"""How the course's figures look and travel: one call at the top of a chapter, one for interactive demos.

Importing this module needs nothing beyond the core dependencies; matplotlib, pandas and plotly (the ``book``
extra) are imported only when a function needs them.
"""

from __future__ import annotations

import os

__all__ = ["BOOK_RC", "use_book_style", "interactive_html"]

# Legible figures at the book's text width (about 16 cm): 12 pt text, slightly smaller legends and ticks.
BOOK_RC = {"font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12, "legend.fontsize": 10,
           "xtick.labelsize": 11, "ytick.labelsize": 11}


def use_book_style(*, precision=4):
    """Make a notebook draw and print as the book does.

    - Figures render inline in Jupyter, Colab and the book build **whatever backend the environment selects**
      (``MPLBACKEND=Agg`` would otherwise hide every figure): the same as ``%matplotlib inline``.
    - Fonts are legible at the book's text width (``BOOK_RC``).
    - pandas prints ``precision`` decimals, so tables show what the text discusses.

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


def interactive_html(fig, **to_html_kwargs):
    """A Plotly figure as HTML that works with no kernel and no network.

    In Jupyter or Colab the HTML carries its own copy of plotly.js (so it works offline); in the built book,
    which loads one copy of plotly.js per site (``TABULAR_TREES_PLOTLY_JS=site``, set by the book's Sphinx
    extension), it does not repeat it on every page.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, with its frames and sliders.
    **to_html_kwargs
        Passed on to ``fig.to_html`` (for example ``auto_play=False``).

    Returns
    -------
    IPython.display.HTML
        Display it as the last expression of a cell.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from tabular_trees.plotting import interactive_html
    >>> html = interactive_html(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))
    >>> "plotly" in html.data
    True
    """
    from IPython.display import HTML

    if not hasattr(fig, "to_html"):
        raise TypeError(f"fig must be a plotly figure (with a to_html method), got {type(fig).__name__}.")
    if "full_html" in to_html_kwargs or "include_plotlyjs" in to_html_kwargs:
        raise ValueError("interactive_html chooses full_html and include_plotlyjs itself; do not pass them.")
    inline = os.environ.get("TABULAR_TREES_PLOTLY_JS") != "site"
    return HTML(fig.to_html(full_html=False, include_plotlyjs=inline, **to_html_kwargs))
