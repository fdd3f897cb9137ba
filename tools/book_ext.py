"""Sphinx extension for the course book: figure guard, withheld solutions, one local plotly.js, the PDF's class.

Listed in ``_config.yml`` under ``sphinx.local_extensions`` (it lives in ``tools/``). It does five things:

1. **Figures cannot disappear.** ``figure_minimums`` (a dict in ``sphinx.config``) maps a document name such
   as ``book/01_bias_variance_trees`` to the smallest number of images its HTML page must contain. After an
   HTML build the extension counts the ``<img>`` tags whose source is an image Sphinx copied into
   ``_images/`` (the figures the executed chapter produced; theme icons are not counted) and fails the build
   with an ``ExtensionError`` naming the page, the count and the minimum when a page has fewer. A kernel
   that silently renders nothing (``MPLBACKEND=Agg`` with ``plt.show()``) therefore breaks the build.
2. **Solutions an instructor can withhold, and no answer in sight.** sphinx-exercise drops ``{solution}`` blocks
   when ``hide_solutions`` is true. Code that belongs to a solution lives in code cells tagged ``solution``
   (right after the ``{solution}`` block); the environment variable ``TABULAR_TREES_HIDE_SOLUTIONS=1`` switches
   ``hide_solutions`` on without editing ``_config.yml``. ``place_answers`` then, in every build (HTML and PDF):
   with solutions shown, moves each ``solution`` cell and the verdict cell after it (``check("6.1", answer_6_1)``)
   into the collapsed solution box, so that neither the answer nor its verdict shows without a click; with
   solutions withheld, removes the ``solution`` cells and keeps the verdict cells' code (the reader's own check)
   without their output; and removes any hidden-check cell (``# Hidden checks ...``) that lacks its
   ``remove-cell`` tag. No later cell may use a name defined in a ``solution`` cell
   (``tests/test_book_structure.py`` checks that). ``unique_ids`` gives the bodies of exercise, solution and
   proof boxes ids of their own (sphinx-exercise and sphinx-proof repeat one id per box).
3. **One copy of plotly.js per site.** During an HTML build the extension sets the environment variable
   ``TABULAR_TREES_PLOTLY_JS=site`` (the executing kernels inherit it), and the chapters then write their
   demos with ``include_plotlyjs=False``; outside the book (Jupyter, Colab, nbval) they inline it. The
   extension copies the ``plotly.min.js`` of the installed plotly package into ``_static/`` and loads it
   on every HTML page, so the book stays offline and no page inlines its own 4.8 MB copy. A chapter executed
   outside the build (the test command's nbval run, whose executions the build reuses from the jupyter-cache)
   did inline it: the extension removes every inlined plotly.js from the pages' HTML outputs
   (``strip_inline_plotly``), so each page loads plotly.js exactly once, from ``_static/``.
4. **A PDF with the book's structure.** ``use_jupyterbook_latex: true`` turns the table of contents' part
   captions into LaTeX parts and every chapter into a LaTeX chapter; this extension then puts Sphinx's own
   LaTeX class back in place of sphinx-jupyterbook-latex's (which needs a 1.4 GB font package).
5. **A handout.** The PDF is US letter unless ``TABULAR_TREES_PAPER=a4``, and leaves the API reference out
   unless ``TABULAR_TREES_PDF_API=1``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from docutils.parsers.rst import directives
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

SOLUTION_TAG_CLASS = "tag_solution"
PLOTLY_JS = "plotly.min.js"
API_PAGE = "book/api"
# An image Sphinx copied for a page: ``src="../_images/…"`` (any depth of ``../``) or ``src="_images/…"``.
_IMG_RE = re.compile(r"<img\b[^>]*\bsrc=\"(?:\.\./)*_images/[^\"]+\"", re.IGNORECASE)


# plotly's ``to_html(include_plotlyjs=True)`` inlines the library as ``<script>/**\n* plotly.js vX.Y.Z ...</script>``.
_VERDICT_RE = re.compile(r"""^check\(\s*["']\d+\.\d+["']\s*,[^\n]*\)\s*;?$""")
_HIDDEN_CHECK_RE = re.compile(r"#\s*hidden checks?\b", re.I)
_SHARED_BODY_IDS = {"exercise-content", "solution-content", "proof-content"}
_INLINE_PLOTLY_RE = re.compile(r"<script[^>]*>\s*/\*\*\s*\*\s*plotly\.js v.*?</script>", re.S)


def strip_inline_plotly(html: str) -> str:
    """``html`` without any inlined copy of plotly.js (the page loads the site's ``_static/plotly.min.js``)."""
    return _INLINE_PLOTLY_RE.sub("", html)


def _strip_inline_plotly_from_outputs(app, doctree, docname) -> None:
    if app.builder.format != "html":
        return
    for node in list(doctree.findall(nodes.raw)):
        if "html" in node.get("format", "").split() and "plotly.js v" in node.astext():
            node.replace_self(nodes.raw("", strip_inline_plotly(node.astext()), format=node["format"]))


def count_figures(html: str) -> int:
    """Number of ``<img>`` tags in ``html`` that show an image from the build's ``_images/`` folder."""
    return len(_IMG_RE.findall(html))


def _hide_solutions_from_env(app, config) -> None:
    flag = os.environ.get("TABULAR_TREES_HIDE_SOLUTIONS", "").strip().lower()
    if flag in {"1", "true", "yes"}:
        config.hide_solutions = True


def _is_code_cell(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def cell_source(cell) -> str:
    """The source code of a MyST-NB code cell container ("" when the cell's input is removed)."""
    for child in cell.children:
        if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code_source":
            return child.astext()
    return ""


def is_verdict_cell(source: str) -> bool:
    """A cell that checks an exercise's answer: ``check("6.1", answer_6_1)`` (its output is the verdict)."""
    return bool(_VERDICT_RE.match(source.strip()))


def is_hidden_check_cell(source: str) -> bool:
    """A cell of hidden checks of the text (``# Hidden checks ...``); it belongs in no page, tagged or not."""
    return bool(_HIDDEN_CHECK_RE.match(source.lstrip()))


def _is_solution(node) -> bool:
    return type(node).__name__ in {"solution_node", "solution_start_node"}


def _previous_sibling(node):
    parent = node.parent
    if parent is None:
        return None
    index = parent.index(node)
    return parent[index - 1] if index > 0 else None


def _into_solution(solution, cell) -> None:
    """Move ``cell`` to the end of the collapsed ``solution`` box, its source shown (the box is the toggle)."""
    cell.parent.remove(cell)
    cell.attributes.pop("hide_mode", None)
    cell["classes"] = [c for c in cell["classes"] if c not in {"tag_hide-input", "tag_hide-output", "tag_hide-cell"}]
    body = solution.children[-1] if solution.children and isinstance(solution.children[-1], nodes.section) else solution
    body.append(cell)


def _drop_outputs(cell) -> None:
    for child in list(cell.children):
        if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code_output":
            cell.remove(child)


def place_answers(doctree, hide_solutions: bool) -> None:
    """Keep every answer out of sight (see item 2 of the module docstring). In document order:

    - a hidden-check cell is removed (in every build);
    - with solutions shown, a ``solution`` cell, and a verdict cell right after it, move into the collapsed
      ``{solution}`` box just before them, so that their code and output show only when the box is opened;
    - with solutions withheld, ``solution`` cells are removed and a verdict cell keeps its code (the reader's
      own check) but not its output (the verdict on the book's answer);
    - a verdict cell that follows no solution box keeps its code and loses its output in every build.
    """
    for cell in [node for node in doctree.findall(_is_code_cell)]:
        if cell.parent is None:
            continue
        source = cell_source(cell)
        if is_hidden_check_cell(source):
            cell.parent.remove(cell)
        elif SOLUTION_TAG_CLASS in cell.get("classes", []):
            previous = _previous_sibling(cell)
            if hide_solutions:
                cell.parent.remove(cell)
            elif previous is not None and _is_solution(previous):
                _into_solution(previous, cell)
        elif is_verdict_cell(source):
            previous = _previous_sibling(cell)
            if not hide_solutions and previous is not None and _is_solution(previous):
                _into_solution(previous, cell)
            else:
                _drop_outputs(cell)


class InteractiveFigure(SphinxDirective):
    """Number and caption the output of the code cell just above, like a static figure::

        ```{interactive-figure}
        :name: fig-ch2-rho-demo

        Interactive: what the demo shows, in a sentence or two.
        ```

    The directive makes an (empty) numbered figure with this caption and label; ``_fill_interactive_figures``
    then moves the output of the code cell right before it into the figure (the Plotly HTML in the web book, its
    static picture in the PDF), so ``{numref}`` and the figure numbers treat it as any other figure."""

    has_content = True
    option_spec = {"name": directives.unchanged_required}

    def run(self):
        if "name" not in self.options or not self.content:
            raise self.error("interactive-figure needs a :name: (fig-chN-...) and a caption as its content")
        figure = nodes.figure(classes=["interactive-figure"], interactive_figure=True)
        body = nodes.Element()
        self.state.nested_parse(self.content, self.content_offset, body)
        if len(body) != 1 or not isinstance(body[0], nodes.paragraph):
            raise self.error("the caption of an interactive-figure is one paragraph")
        caption = nodes.caption(body[0].rawsource, "", *body[0].children)
        caption.source, caption.line = self.get_source_info()
        figure += caption
        self.add_name(figure)
        return [figure]


def _fill_interactive_figures(app, doctree) -> None:
    for figure in list(doctree.findall(nodes.figure)):
        if not figure.get("interactive_figure"):
            continue
        previous = _previous_sibling(figure)
        outputs = [child for child in (previous.children if previous is not None and _is_code_cell(previous) else [])
                   if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code_output"]
        if not outputs:
            logger.warning("interactive-figure: no code cell with an output right before it", location=figure)
            continue
        previous.remove(outputs[0])
        figure.insert(0, outputs[0])


def _place_answers(app, doctree) -> None:
    place_answers(doctree, bool(getattr(app.config, "hide_solutions", False)))


def unique_ids(doctree) -> None:
    """sphinx-exercise and sphinx-proof give the body of every box the same id (``exercise-content``,
    ``solution-content``, ``proof-content``); name it after its box (``<label>-content``, the old id kept as a
    class) and number any other repeated id of the page."""
    seen: set[str] = set()
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids", [])
        if not ids:
            continue
        renamed = []
        for ident in ids:
            if ident in _SHARED_BODY_IDS:
                parent_ids = node.parent.get("ids", []) if node.parent is not None else []
                if ident not in node["classes"]:
                    node["classes"].append(ident)
                if parent_ids:
                    ident = f"{parent_ids[0]}-content"
            base, n = ident, 2
            while ident in seen:
                ident, n = f"{base}-{n}", n + 1
            seen.add(ident)
            renamed.append(ident)
        node["ids"] = renamed


def _unique_ids(app, doctree) -> None:
    unique_ids(doctree)


def _builder_inited(app) -> None:
    if app.builder.format == "html":
        app.add_js_file(PLOTLY_JS)
        # Kernels started by MyST-NB inherit this; the chapters then write their demos without plotly.js.
        os.environ["TABULAR_TREES_PLOTLY_JS"] = "site"


def _copy_plotly_and_check_figures(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import plotly

    source = Path(plotly.__file__).parent / "package_data" / PLOTLY_JS
    if not source.is_file():
        raise ExtensionError(f"book_ext: {source} not found; install plotly (the book extra) to build the book")
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, static / PLOTLY_JS)

    minimums = dict(app.config.figure_minimums or {})
    problems = []
    for docname, minimum in sorted(minimums.items()):
        # dirhtml writes docname/index.html; html writes docname.html
        get_outfilename = getattr(app.builder, "get_outfilename", None)
        page = Path(get_outfilename(docname)) if get_outfilename else Path(app.outdir) / (docname + ".html")
        if not page.is_file():
            if docname in app.env.found_docs:
                problems.append(f"{docname}: page {page} was not written")
            continue  # chapter not part of this build (e.g. a shortened _toc.yml)
        found = count_figures(page.read_text(encoding="utf-8"))
        logger.info(f"book_ext: {docname} has {found} figures (minimum {minimum})")
        if found < int(minimum):
            problems.append(f"{docname}: {found} figures, expected at least {minimum}")
    if problems:
        raise ExtensionError(
            "figure check failed (a chapter lost figures; is matplotlib rendering inline? "
            "see figure_minimums in _config.yml):\n  " + "\n  ".join(problems)
        )


# MyST-NB names every "Show code cell source" toggle "Toggle hidden content" (aria-label), which hides the visible
# words from speech input (axe: label-content-name-mismatch); the visible summary names the toggle by itself.
_TOGGLE_LABEL = '<summary aria-label="Toggle hidden content">'
# pandas writes an empty header cell above the index (axe: empty-table-header); give it a name a screen reader
# reads and the page does not show.
_EMPTY_TH_RE = re.compile(r"<th(\s[^>]*)?>(?:\s|&nbsp;|&#160;)*</th>")


def fix_page_html(body: str) -> str:
    """The page body with the toggles' labels fixed, no empty table header (see the two patterns above), and the
    bibliography's entries as items of its list: docutils marks them ``doc-biblioentry``, a role ARIA 1.2
    deprecated, which leaves the ``role="list"`` around them without items (axe: aria-required-children)."""
    body = body.replace(_TOGGLE_LABEL, "<summary>")
    body = body.replace('class="citation" role="doc-biblioentry"', 'class="citation" role="listitem"')
    body = re.sub(r'(<div class="citation" id="[^"]+") role="doc-biblioentry"', r'\1 role="listitem"', body)
    return _EMPTY_TH_RE.sub(lambda m: f'<th{m.group(1) or ""}><span class="visually-hidden">row label</span></th>', body)


def _fix_page(app, pagename, templatename, context, doctree) -> None:
    if isinstance(context.get("body"), str):
        context["body"] = fix_page_html(context["body"])
    # sphinx-thebe adds its configuration script at every env-before-read-docs, which a build can reach twice;
    # a repeated "const THEBE_JS_URL" stops the page's scripts with a SyntaxError. Keep each script once.
    scripts = context.get("script_files")
    if scripts:
        seen, unique = set(), []
        for script in scripts:
            # an inline script comes once with filename None and once with "" (registry and builder copies)
            key = (getattr(script, "filename", script) or "", repr(sorted(getattr(script, "attributes", {}).items())))
            if key not in seen:
                seen.add(key)
                unique.append(script)
        context["script_files"] = unique


def _plain_latex_class(app, config) -> None:
    """Keep sphinx-jupyterbook-latex's structure (parts from the table of contents' captions, chapters at chapter
    level, the root page in front) but Sphinx's own LaTeX class: the extension's class needs bbm.sty, which
    Debian ships only in the 1.4 GB texlive-fonts-extra package. Runs after the extension's own config hook."""
    if "sphinx_jupyterbook_latex" in config.extensions:
        config.latex_theme = "manual"


def _paper_size(app, config) -> None:
    """The PDF is US letter unless ``TABULAR_TREES_PAPER=a4`` (only the LaTeX builder reads ``latex_elements``)."""
    paper = os.environ.get("TABULAR_TREES_PAPER", "letter").strip().lower()
    if paper not in {"letter", "a4"}:
        raise ExtensionError(f"TABULAR_TREES_PAPER must be 'letter' or 'a4', got {paper!r}")
    config.latex_elements = {**(config.latex_elements or {}), "papersize": f"{paper}paper"}


def _api_out_of_the_handout(app) -> None:
    """The PDF leaves the API reference out (80 pages the handout does not need; the HTML book has it) unless
    ``TABULAR_TREES_PDF_API=1``. Runs before Sphinx looks for the source files."""
    if app.builder.format != "latex":
        return
    if not _api_wanted_in_pdf():
        app.config.exclude_patterns = [*app.config.exclude_patterns, API_PAGE + ".md"]
        # the contents and the introduction's {doc} link name the page left out; the HTML build (-W) still checks
        # every document link
        app.config.suppress_warnings = [*app.config.suppress_warnings, "etoc.ref", "ref.doc"]


def _reread_contents_when_api_comes_or_goes(app, env, added, changed, removed):
    """A build that reuses the environment of another (the PDF after the HTML, or the other way round) adds or
    removes the API page without re-reading the pages whose contents list it, so their stored toctrees still
    name it (the PDF then inlined the whole API reference) or still lack it. Re-read every page with a toctree."""
    if API_PAGE in added or API_PAGE in removed:
        return sorted(doc for doc in env.toctree_includes if doc not in added)
    return []


def _api_wanted_in_pdf() -> bool:
    return os.environ.get("TABULAR_TREES_PDF_API", "").strip().lower() in {"1", "true", "yes"}


class _DropApiFromPdfContents(SphinxPostTransform):
    """Without the API page the PDF's contents must not list it: sphinx-jupyterbook-latex's list of contents
    (a post-transform at priority 999) looks up the title of every toctree entry and fails on a page left out of
    the build. This runs first and drops the entry from the toctrees and their copies."""

    default_priority = 990
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        if _api_wanted_in_pdf():
            return
        def is_contents(node):  # a toctree or sphinx-jupyterbook-latex's copy of one (index nodes have entries too)
            return isinstance(node, addnodes.toctree) or (
                isinstance(node, nodes.Element) and "latex-tableofcontents" in str(node.get("classes", "")))

        for node in self.document.findall(is_contents):
            node["entries"] = [(title, entry) for title, entry in node.get("entries", []) if entry != API_PAGE]
            if "includefiles" in node.attributes:
                node["includefiles"] = [entry for entry in node["includefiles"] if entry != API_PAGE]


def _number_within_chapters(app) -> None:
    """sphinx-jupyterbook-latex numbers exercises and theorems within sections in the PDF ("Exercise 8.11.2": it
    sets ``numfig_secnum_depth = 2`` when the contents have parts); the book numbers them within chapters, as the
    HTML does and the check ids read ("Exercise 8.2"). Runs after the extension's own ``builder-inited`` hook."""
    if app.builder.format == "latex":
        app.config["numfig_secnum_depth"] = 1


def setup(app):
    app.connect("config-inited", _plain_latex_class, priority=900)
    app.add_config_value("figure_minimums", {}, "html")
    app.connect("config-inited", _hide_solutions_from_env)
    app.connect("doctree-read", _place_answers)
    app.add_directive("interactive-figure", InteractiveFigure)
    app.connect("doctree-read", _fill_interactive_figures)
    app.connect("doctree-read", _unique_ids, priority=900)
    app.connect("builder-inited", _builder_inited)
    app.connect("config-inited", _paper_size)
    app.connect("builder-inited", _api_out_of_the_handout)
    app.connect("env-get-outdated", _reread_contents_when_api_comes_or_goes)
    app.add_post_transform(_DropApiFromPdfContents)
    app.connect("builder-inited", _number_within_chapters, priority=900)
    app.connect("build-finished", _copy_plotly_and_check_figures)
    app.connect("doctree-resolved", _strip_inline_plotly_from_outputs)
    app.connect("html-page-context", _fix_page, priority=999)  # after every handler that adds a script
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
