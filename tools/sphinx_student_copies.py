"""Sphinx extension: publish the student copies of the chapters with the HTML book.

When the HTML builder finishes, ``tools/export_notebooks.py`` writes one student copy per chapter into
``_static/students/`` of the built site, and every chapter page carries a line with its download link
and its Colab and Binder links. Those links open the copies on the branch named by ``repository.branch``
in ``_config.yml`` (the branch that publishing fills with ``python tools/export_notebooks.py OUTDIR/book``),
under the one repository URL of ``_config.yml``, so the book's own launch buttons open the same copies.
"""

from __future__ import annotations

import posixpath
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_notebooks  # noqa: E402  (the exporter lives beside this extension)

STUDENTS = "_static/students"


def _chapters():
    return {f"book/{p.stem}": p for p in export_notebooks.chapters_from_toc()}


def _links(app, pagename, pathto=None):
    options = app.config.html_theme_options
    url = options.get("repository_url", "").rstrip("/")
    branch = options.get("repository_branch", "main")
    slug = url.split("github.com/")[-1]
    notebook = f"{pagename}.ipynb"
    target = f"{STUDENTS}/{Path(notebook).name}"
    # Sphinx's pathto knows how deep the page lies (dirhtml writes book/01_x/index.html, html book/01_x.html)
    download = pathto(target, 1) if pathto else posixpath.relpath(target, posixpath.dirname(pagename) or ".")
    colab = f"https://colab.research.google.com/github/{slug}/blob/{branch}/{notebook}"
    binder = f"https://mybinder.org/v2/gh/{slug}/{branch}?labpath={notebook}"
    return (f'<p class="student-copy">Student notebook for this chapter (no solutions, no hidden checks): '
            f'<a href="{download}" download>download</a> · <a href="{colab}">open in Colab</a> · '
            f'<a href="{binder}">launch on Binder</a>.</p>\n')


def add_links(app, pagename, templatename, context, doctree):
    if pagename in _chapters() and "body" in context:
        context["body"] = _links(app, pagename, context.get("pathto")) + context["body"]


def write_copies(app, exception):
    if exception is None and app.builder.format == "html":
        export_notebooks.export(Path(app.outdir) / STUDENTS)


def setup(app):
    app.connect("html-page-context", add_links)
    app.connect("build-finished", write_copies)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
