"""Sphinx extension for the course book: figure guard, withheld solutions, one local plotly.js, the printed editions.

Listed in ``_config.yml`` under ``sphinx.local_extensions`` (it lives in ``tools/``). It does six things:

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
5. **Two printed editions.** ``TABULAR_TREES_EDITION`` (``tools/editions.py``) picks the student edition (the
   default: introduction, chapters 1-10, glossary, references, no solutions; ``tabular-trees.pdf``) or the
   instructors' edition (every page, solutions shown; ``tabular-trees-instructors.pdf``). A link to a page the
   edition leaves out prints its title and "(instructors' edition)". The title page names the edition, the
   library's version and the date; pages are one-sided, so no blank page precedes a chapter. The PDF is US letter
   unless ``TABULAR_TREES_PAPER=a4``.
6. **Print layout.** A table a cell printed is set at its natural width and shrunk to the text width when wider
   (a wide, short one turned on its side), so no digit is cut; an interactive figure prints its starting position
   with its ``:print:`` caption, without the code that builds the demo (``_PrintLayout``).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from docutils.parsers.rst import directives
from sphinx.errors import ExtensionError
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

SOLUTION_TAG_CLASS = "tag_solution"
PLOTLY_JS = "plotly.min.js"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import EDITION_NAMES, EDITION_TARGETS, INSTRUCTOR_PAGES, pages_left_out  # noqa: E402
from editions import pdf_edition as _edition_from_env  # noqa: E402
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

    ``:print:`` (optional) is the caption of the PDF, which prints the demo's starting position and not the code
    that builds it (``_PrintLayout``). The directive makes an (empty) numbered figure with this caption and label; ``_fill_interactive_figures``
    then moves the output of the code cell right before it into the figure (the Plotly HTML in the web book, its
    static picture in the PDF), so ``{numref}`` and the figure numbers treat it as any other figure."""

    has_content = True
    option_spec = {"name": directives.unchanged_required, "print": directives.unchanged}

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
        if self.options.get("print"):
            printed = nodes.Element()
            self.state.nested_parse(StringList([self.options["print"]]), self.content_offset, printed)
            figure["print_caption"] = nodes.caption(printed[0].rawsource, "", *printed[0].children)
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


_ROLE_HEADING_TAG_RE = re.compile(r'<\w+\b[^>]*\srole="heading"[^>]*>')


def heading_levels(html: str) -> str:
    """``html`` with ``aria-level="2"`` on every element of role heading that has no level: Sphinx writes the
    captions of a table of contents (the sidebar's part names, the introduction's lists) as
    ``<p class="caption" role="heading">``, and ARIA 1.2 requires a level (axe: aria-required-attr, critical)."""
    def level(match):
        tag = match.group(0)
        return tag if "aria-level=" in tag else tag[:-1] + ' aria-level="2">'

    return _ROLE_HEADING_TAG_RE.sub(level, html)


def _add_heading_levels(app, exception) -> None:
    """The sidebar is written by the theme's templates, outside the page body ``_fix_page`` sees: fix the written
    pages."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        fixed = heading_levels(text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


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


def pdf_edition() -> str:
    """The edition this PDF build prints (``editions.pdf_edition``), as a Sphinx error when it is unknown."""
    try:
        return _edition_from_env()
    except ValueError as error:
        raise ExtensionError(str(error)) from None


def _book_version() -> str:
    try:
        from importlib.metadata import version

        return version("tabular-trees-course")
    except Exception:  # the book built without the package installed: no version on the title page
        return ""


def _builder_name(app) -> str | None:
    """The name of the builder this Sphinx application was created with, at ``config-inited`` (Sphinx creates the
    builder after this event, and the environment, which must see the edition's configuration, before it): the
    ``buildername`` argument of ``Sphinx.__init__`` on the call stack."""
    import inspect

    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is app:
            return frame.f_locals.get("buildername")
        frame = frame.f_back
    return None


def _edition_config(app, config) -> None:
    """A PDF build prints one edition (``pdf_edition``): its own file name, a title page that names the edition,
    the library's version and the date, solutions withheld in the student edition and shown in the instructors'.
    Every edition: one-sided pages that start a chapter on the next page (no blank pages), no domain indices
    (sphinx-proof's "Proof Index" lists internal labels), the general index only in the instructors' edition."""
    if _builder_name(app) != "latex":
        return
    edition = pdf_edition()
    if edition == "student":
        config.hide_solutions = True
    documents = list(config.latex_documents or [])
    if documents:
        first = list(documents[0])
        first[1] = EDITION_TARGETS[edition]
        documents[0] = tuple(first)
        config.latex_documents = documents
    version = _book_version()
    config.release = version
    config.latex_domain_indices = False
    elements = dict(config.latex_elements or {})
    elements["releasename"] = EDITION_NAMES[edition] + (", version" if version else "")
    elements["extraclassoptions"] = "openany,oneside"
    # the instructors' index names classes and modules in full: smaller type, ragged right, so that the longest
    # ("tabular_trees.dte.PseudoLinearDiscriminantAnalysis") fits its column
    elements["printindex"] = "" if edition == "student" else "\\footnotesize\\raggedright\\printindex"
    config.latex_elements = elements


def _leave_pages_out_of_the_pdf(app) -> None:
    """The PDF leaves out the pages its edition does not print (``pages_left_out``). Runs before Sphinx looks for
    the source files."""
    if app.builder.format != "latex":
        return
    left_out = pages_left_out(pdf_edition())
    if left_out:
        app.config.exclude_patterns = [*app.config.exclude_patterns, *(page + ".md" for page in left_out),
                                       *(page + ".ipynb" for page in left_out)]
        # the contents and links name the pages left out; the HTML build (-W) still checks every link
        app.config.suppress_warnings = [*app.config.suppress_warnings, "etoc.ref", "ref.doc", "ref.ref",
                                        "ref.numref"]


def _reread_contents_when_pages_come_or_go(app, env, added, changed, removed):
    """A build that reuses the environment of another (the PDF after the HTML, or one edition after the other)
    adds or removes pages without re-reading the pages whose contents list them, so their stored toctrees still
    name them or still lack them. Re-read every page with a toctree."""
    if set(INSTRUCTOR_PAGES) & (set(added) | set(removed)):
        return sorted(doc for doc in env.toctree_includes if doc not in added)
    return []


@functools.lru_cache(maxsize=None)
def _page_source(srcdir: str, docname: str) -> str:
    """The Markdown text of a page (a .md file, or the Markdown cells of a notebook); read once per build."""
    import json

    root = Path(srcdir)
    if (root / (docname + ".md")).is_file():
        return (root / (docname + ".md")).read_text(encoding="utf-8")
    if (root / (docname + ".ipynb")).is_file():
        cells = json.loads((root / (docname + ".ipynb")).read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return ""


def left_out_title(sources: dict[str, str], target: str, reftype: str) -> str | None:
    """The title a reference to a left-out page or section shows: the page's ``# `` title for a document, the
    heading under the label ``(target)=`` for a section; None when no left-out page has it."""
    for docname, text in sources.items():
        if reftype == "doc" and docname == target:
            match = re.search(r"^# (.+)$", text, re.M)
            return match.group(1).strip() if match else None
        if reftype == "ref":
            match = re.search(r"^\(" + re.escape(target) + r"\)=\s*\n#+ (.+)$", text, re.M)
            if match:
                return match.group(1).strip()
    return None


def _left_out_reference(app, env, node, contnode):
    """In a PDF edition without some pages, a link to one of them prints its title (or its own text) in italics,
    followed by "[instructors' edition]" (brackets, as the link often stands in parentheses), instead of a bare
    label or file name."""
    if app.builder.format != "latex" or node.get("reftype") not in {"doc", "ref"}:
        return None
    left_out = pages_left_out(pdf_edition())
    if not left_out:
        return None
    from sphinx.util import docname_join

    sources = {docname: _page_source(str(app.srcdir), docname) for docname in left_out}
    target = node["reftarget"]
    if node["reftype"] == "doc":
        target = docname_join(node.get("refdoc", ""), target)
    title = left_out_title(sources, target, node["reftype"])
    if title is None:
        return None
    shown = contnode.astext() if node.get("refexplicit") else title
    return nodes.inline("", "", nodes.emphasis(shown, shown), nodes.Text(" [instructors’ edition]"))


class _DropLeftOutPagesFromPdfContents(SphinxPostTransform):
    """The PDF's contents must not list a page its edition leaves out: sphinx-jupyterbook-latex's list of
    contents (a post-transform at priority 999) looks up the title of every toctree entry and fails on a page left
    out of the build. This runs first and drops those entries from the toctrees and their copies."""

    default_priority = 990
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        left_out = set(pages_left_out(pdf_edition()))
        if not left_out:
            return

        def is_contents(node):  # a toctree or sphinx-jupyterbook-latex's copy of one (index nodes have entries too)
            return isinstance(node, addnodes.toctree) or (
                isinstance(node, nodes.Element) and "latex-tableofcontents" in str(node.get("classes", "")))

        for node in self.document.findall(is_contents):
            node["entries"] = [(title, entry) for title, entry in node.get("entries", []) if entry not in left_out]
            if "includefiles" in node.attributes:
                node["includefiles"] = [entry for entry in node["includefiles"] if entry not in left_out]


FIT_CLASS = "tt-fit"  # a table typeset at its natural width and shrunk to the text width when wider (PDF)
TRANSPOSE_MIN_COLUMNS = 9  # an output table this wide with fewer rows than columns prints transposed


def _table_grid(table):
    """The rows of a docutils table (header rows first) as lists of entries, or None when a cell spans."""
    groups = [child for child in table.children if isinstance(child, nodes.tgroup)]
    if len(groups) != 1:
        return None
    rows = [row for part in groups[0].children if isinstance(part, (nodes.thead, nodes.tbody)) for row in part]
    grid = [list(row.children) for row in rows]
    if any(e.get("morecols") or e.get("morerows") for row in grid for e in row) or len({len(r) for r in grid}) != 1:
        return None
    return grid


def transpose_table(table) -> bool:
    """Turn a wide, short table on its side in place (its first column becomes the header row) when it has at
    least ``TRANSPOSE_MIN_COLUMNS`` columns and fewer rows than columns; returns whether it did."""
    grid = _table_grid(table)
    if not grid or len(grid[0]) < TRANSPOSE_MIN_COLUMNS or len(grid) >= len(grid[0]):
        return False
    columns = [list(column) for column in zip(*grid)]
    group = nodes.tgroup(cols=len(grid))
    group += [nodes.colspec(colwidth=1) for _ in grid]
    head, body = nodes.thead(), nodes.tbody()
    head += nodes.row("", *columns[0])
    for column in columns[1:]:
        body += nodes.row("", *column)
    group += [head, body]
    for child in list(table.children):
        if isinstance(child, nodes.tgroup):
            table.remove(child)
    table += group
    return True


def _in_cell_output(node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.container) and parent.get("nb_element") == "cell_code_output":
            return True
        parent = parent.parent
    return False


class _PrintLayout(SphinxPostTransform):
    """What the PDF prints differently from the web book:

    - a table a cell printed (a DataFrame) is typeset at its natural width and shrunk to the text width when wider
      (``FIT_CLASS``; tabulary would wrap it into columns too narrow for its numbers, which then overprint their
      neighbours), and a wide, short one is turned on its side (``transpose_table``);
    - an interactive figure shows its static picture: the code cell that builds the demo (sliders, buttons) is
      left out, and the caption reads as ``:print:`` says (the web caption names the sliders)."""

    default_priority = 400
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        for table in list(self.document.findall(nodes.table)):
            if _in_cell_output(table):
                transpose_table(table)
                table["classes"].append(FIT_CLASS)
        for figure in list(self.document.findall(nodes.figure)):
            if not figure.get("interactive_figure"):
                continue
            previous = _previous_sibling(figure)
            if previous is not None and _is_code_cell(previous):
                previous.parent.remove(previous)
            printed = figure.get("print_caption")
            if printed is not None:
                for caption in list(figure.findall(nodes.caption)):
                    caption.replace_self(printed.deepcopy())


WRAP_MIN_CHARACTERS = 28  # a column with a longer cell wraps its text in a column of fixed width


def fit_colspec(table, colsep: str = "|") -> str:
    """The column specification of an output table typeset at its natural width: ``l`` columns, except that a
    column with a cell longer than ``WRAP_MIN_CHARACTERS`` characters (a list of settings, a long header) wraps in a
    ``p`` column, so that one long cell does not shrink the whole table until it cannot be read."""
    grid = _table_grid(table)
    if not grid:
        columns = max((len(row) for row in table.findall(nodes.row)), default=1)
        return "{" + colsep + (("l" + colsep) * columns) + "}\n"
    longest = [max(len(row[c].astext()) for row in grid) for c in range(len(grid[0]))]
    longest_word = [max((len(w) for row in grid for w in row[c].astext().split()), default=0)
                    for c in range(len(grid[0]))]
    wrapped = [c for c, n in enumerate(longest) if n > WRAP_MIN_CHARACTERS]
    share = min(0.3, 0.6 / len(wrapped)) if wrapped else 0
    # the text width holds about 52 em of the table's type; a column is never narrower than its longest word
    # (about 0.55 em a character), which cannot break
    specs = [f"p{{{max(share * 52, 0.55 * longest_word[c]):.1f}em}}" if c in wrapped else "l"
             for c in range(len(longest))]
    return "{" + colsep + colsep.join(specs) + colsep + "}\n"


def _visit_solution_latex(self, node) -> None:
    """A solution in the PDF (instructors' edition) is a titled block between rules, not a framed box: a framed
    box cannot split the code and tables it holds across pages, so a long one ran over the page's foot."""
    target = self.builder.env.sphinx_exercise_registry[node["label"]]
    self.body.append("\\phantomsection \\label{" + f"{target.get('docname')}:{node['label']}" + "}\n")
    self.body.append("\n\\begin{TTsolution}")


def _depart_solution_latex(self, node) -> None:
    self.body.append("\\end{TTsolution}\n")


def _breakable_solutions(app) -> None:
    if app.builder.format != "latex":
        return
    from sphinx_exercise.nodes import solution_node

    app.registry.add_translation_handlers(solution_node, latex=(_visit_solution_latex, _depart_solution_latex))


def _latex_translator():
    from sphinx.writers.latex import LaTeXTranslator

    class BookLaTeXTranslator(LaTeXTranslator):
        """Sphinx's LaTeX writer, but a table of class ``FIT_CLASS`` is a natural-width ``tabular`` inside the
        ``TTfit`` environment (defined in ``_config.yml``'s preamble), which shrinks it to the text width only
        when it is wider."""

        def depart_table(self, node):
            if FIT_CLASS not in node.get("classes", []):
                return super().depart_table(node)
            self.table.has_verbatim = True  # Sphinx's choice for natural width: tabular with l columns
            self.table.colspec = fit_colspec(node, self.table.colsep or "")
            start = len(self.body)
            super().depart_table(node)
            fragment = "".join(self.body[start:])
            fragment = fragment.replace(r"\begin{tabular}", r"\begin{TTfit}\begin{tabular}", 1)
            fragment = fragment.replace(r"\end{tabular}", r"\end{tabular}\end{TTfit}", 1)
            self.body[start:] = [fragment]

    return BookLaTeXTranslator


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
    app.connect("builder-inited", lambda app: _page_source.cache_clear())  # a page read in one build, not in the next
    app.connect("config-inited", _paper_size)
    app.connect("config-inited", _edition_config, priority=950)
    app.connect("builder-inited", _leave_pages_out_of_the_pdf)
    app.connect("env-get-outdated", _reread_contents_when_pages_come_or_go)
    app.add_post_transform(_DropLeftOutPagesFromPdfContents)
    app.add_post_transform(_PrintLayout)
    app.connect("missing-reference", _left_out_reference)
    app.set_translator("latex", _latex_translator(), override=True)
    app.connect("builder-inited", _breakable_solutions)
    app.connect("builder-inited", _number_within_chapters, priority=900)
    app.connect("build-finished", _copy_plotly_and_check_figures)
    app.connect("build-finished", _add_heading_levels)
    app.connect("doctree-resolved", _strip_inline_plotly_from_outputs)
    app.connect("html-page-context", _fix_page, priority=999)  # after every handler that adds a script
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
