"""Load every page of the built HTML book in a real browser and fail on anything a reader would meet as broken.

Usage::

    python tools/check_browser.py [_build/html] [--solutions-withheld] [--json report.json]

Chromium (Debian's ``chromium``, driven by Playwright from pip; never ``playwright install``) opens each page from a
loopback HTTP server, with every request to another host blocked, at a desktop width (1280 px) and a phone width
(375 px). A page fails on

- ``console error`` / ``page error``: a message logged as an error, an uncaught exception;
- ``failed request``: a response with status 400 or more, a request that failed, any request off the loopback server;
- ``broken image``: an ``<img>`` that does not decode;
- ``undrawn figure``: a Plotly figure (``.plotly-graph-div``) without its drawing;
- ``untypeset math``: a ``.math`` element MathJax did not typeset, a MathJax error, or TeX (``\\frac``,
  ``\\operatorname``, ...) left as text outside code and math (Markdown read part of a formula as prose);
- ``broken link``: a link to a page of the book that does not exist, or to an anchor the page does not have;
- ``page too wide``: at phone width, a page wider than the viewport (the reader must scroll sideways);
- ``wide equation``: at desktop width, a display equation wider than its text column;
- ``visible answer``: a solution cell or a verdict (``✓ Exercise 6.1: right``) visible without a click, or a
  hidden-check cell anywhere; with ``--solutions-withheld``, any solution or verdict in the page at all;
- ``duplicate id``: an ``id`` used twice on a page;
- ``axe``: a serious or critical axe-core violation (axe-core from npm, ``AXE_CORE_JS`` or
  ``_build/.tools/node_modules/axe-core/axe.min.js``), unless ``tools/browser_allowlist.json`` lists it with the
  upstream issue that tracks it.

Prints one line per problem and a summary of the counts; exit status 1 when there is a problem.
``tests/test_browser_check.py`` builds a small site with one broken page per kind and checks each is caught.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import sys
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_AXE = ROOT / "_build" / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
DEFAULT_ALLOWLIST = Path(__file__).resolve().parent / "browser_allowlist.json"
WIDTHS = {"desktop": (1280, 900), "phone": (375, 740)}
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_sphinx_design_static", "_panels_static", ".tools",
             "students"}
SERIOUS = ("serious", "critical")
CATEGORIES = ("console error", "page error", "failed request", "broken image", "undrawn figure", "untypeset math",
              "broken link", "page too wide", "wide equation", "visible answer", "duplicate id", "axe")
_ID_RE = re.compile(r"""\s(?:id|name)\s*=\s*["']([^"']+)["']""")


@dataclass
class Problem:
    page: str
    width: str
    category: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page} [{self.width}] {self.category}: {self.detail}"


@dataclass
class Report:
    pages: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    allowed: list[Problem] = field(default_factory=list)  # axe violations on the allow-list
    axe_impacts: Counter = field(default_factory=Counter)  # every axe violation node, by impact (allowed or not)

    def counts(self) -> dict[str, int]:
        found = Counter(p.category for p in self.problems)
        return {category: found.get(category, 0) for category in CATEGORIES}


def find_chromium() -> str | None:
    """The browser to drive: ``$CHROMIUM``, else Debian's ``chromium``."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def find_axe() -> Path | None:
    candidate = Path(os.environ.get("AXE_CORE_JS") or DEFAULT_AXE)
    return candidate if candidate.is_file() else None


def pages_of(build: Path) -> list[str]:
    """Every HTML page of the build, as paths relative to it (assets and student copies left out)."""
    found = []
    for path in sorted(build.rglob("*.html")):
        rel = path.relative_to(build)
        if set(rel.parts[:-1]) & SKIP_DIRS:
            continue
        if re.search(r'<meta[^>]+http-equiv="refresh"', path.read_text(encoding="utf-8", errors="replace")[:2000], re.I):
            continue  # a redirect (Jupyter Book's index.html): the page it leads to is checked
        found.append(rel.as_posix())
    return found


def load_allowlist(path: Path | None) -> list[dict]:
    """Entries ``{"rule": axe rule id, "target": regex on the node's selector, "upstream": issue URL, "why": ...}``."""
    if path is None or not Path(path).is_file():
        return []
    entries = json.loads(Path(path).read_text(encoding="utf-8"))
    for entry in entries:
        missing = {"rule", "target", "upstream", "why"} - set(entry)
        if missing:
            raise ValueError(f"allow-list entry {entry} lacks {sorted(missing)}: every entry names its upstream issue")
        re.compile(entry["target"])
    return entries


def allowed_by(entries: list[dict], rule: str, target: str) -> dict | None:
    for entry in entries:
        if entry["rule"] == rule and re.search(entry["target"], target):
            return entry
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D102 - silence the access log
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # left a page mid-load
            super().handle_error(request, client_address)


def _serve(build: Path):
    handler = functools.partial(_QuietHandler, directory=str(build))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


# Runs in the page once it has loaded, MathJax has typeset and Plotly has drawn (or the waits ran out).
_INSPECT_JS = r"""
({phone, withheld}) => {
  const out = {math: [], images: [], plotly: [], wide: [], equations: [], answers: [], dupes: [], links: []};
  const visible = (el) => el.checkVisibility ? el.checkVisibility({checkVisibilityCSS: true, checkOpacity: true})
                                             : el.getClientRects().length > 0;
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = (el.className && el.className.baseVal === undefined) ? String(el.className).trim() : '';
    if (cls) s += '.' + cls.split(/\s+/).slice(0, 3).join('.');
    return s;
  };
  const snippet = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 80);
  // math
  for (const el of document.querySelectorAll('.math')) {
    if (!el.querySelector('mjx-container') && el.tagName !== 'MJX-CONTAINER') out.math.push('not typeset: ' + snippet(el));
  }
  for (const el of document.querySelectorAll('mjx-merror, [data-mjx-error]')) {
    out.math.push('MathJax error: ' + (el.getAttribute('data-mjx-error') || snippet(el)));
  }
  const texRe = /\\(operatorname|frac|mathrm|mathbb|mathbf|mathcal|begin\{|end\{|sum_|prod_|hat\{|tilde\{|left[(\[|]|right[)\]|]|cdot|sqrt|infty|le\b|ge\b|in\b)/;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => node.parentElement && node.parentElement.closest(
      'pre, code, kbd, samp, script, style, textarea, .math, mjx-container, .highlight, .sig, .cell_input, .output, .cell_output, [class*="search"]')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const m = n.textContent.match(texRe);
    if (m) out.math.push('TeX as text: ' + n.textContent.replace(/\s+/g, ' ').trim().slice(0, 80));
  }
  // images and figures
  for (const img of document.images) {
    if (!img.complete || img.naturalWidth === 0) out.images.push(img.getAttribute('src'));
  }
  for (const el of document.querySelectorAll('.plotly-graph-div')) {
    if (!el.querySelector('.main-svg')) out.plotly.push(el.id || describe(el));
  }
  // width
  const vw = document.documentElement.clientWidth;
  out.pageWidth = Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0);
  out.viewport = vw;
  if (phone && out.pageWidth > vw + 1) {
    const culprits = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.right > vw + 1 && r.width > 0 && visible(el)) {
        // report the outermost overflowing element whose parent fits, unless a box around it scrolls or clips
        let clipped = false;
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          if (getComputedStyle(a).overflowX !== 'visible') { clipped = true; break; }
        }
        const pr = el.parentElement ? el.parentElement.getBoundingClientRect() : null;
        if (!clipped && (!pr || pr.right <= vw + 1) && el.id !== 'pst-skip-link')
          culprits.push(describe(el) + ' (' + Math.round(r.right) + ' px)');
      }
      if (culprits.length >= 5) break;
    }
    out.wide.push(out.pageWidth + ' px wide at ' + vw + ' px: ' + (culprits.join(', ') || 'no single element'));
  }
  for (const c of document.querySelectorAll('mjx-container[display="true"]')) {
    const math = c.querySelector('mjx-math') || c;
    const box = c.closest('div.math') || c.parentElement || c;
    const w = math.getBoundingClientRect().width, col = box.clientWidth;
    if (w > col + 1) out.equations.push(Math.round(w) + ' px in a ' + Math.round(col) + ' px column: ' +
      (c.getAttribute('aria-label') || snippet(box)).slice(0, 80));
  }
  // answers
  const verdictRe = /^\s*[✓≈✗…] Exercise \d+\.\d+:/;
  for (const el of document.querySelectorAll('.tag_solution, .solution')) {
    if (withheld) out.answers.push('solution in a page without solutions: ' + describe(el));
    else if (el.classList.contains('tag_solution') && visible(el)) {
      out.answers.push('solution cell visible: ' + snippet(el));
    } else if (el.classList.contains('solution')) {
      // the box's title is visible; its body must not be
      for (const child of el.children) {
        if (!child.classList.contains('admonition-title') && !child.matches('button, .toggle-button') && visible(child)) {
          out.answers.push('solution body visible: ' + snippet(child)); break;
        }
      }
    }
  }
  for (const el of document.querySelectorAll('.cell_output, .output')) {
    if (verdictRe.test(el.textContent || '') && (withheld || visible(el))) out.answers.push('verdict shown: ' + snippet(el));
  }
  for (const el of document.querySelectorAll('.cell_input, div.highlight')) {
    if (/^\s*#\s*hidden checks?\b/i.test(el.textContent || '')) out.answers.push('hidden-check cell: ' + snippet(el));
  }
  // ids
  const seen = new Map();
  for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
  for (const [id, n] of seen) if (n > 1) out.dupes.push(id + ' (' + n + ' times)');
  // links
  for (const a of document.querySelectorAll('a[href]')) out.links.push(a.href);
  return out;
}
"""

_WAIT_JS = r"""
async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for (const img of document.images) { if (img.loading === 'lazy') img.loading = 'eager'; }
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await MathJax.startup.promise; } catch (e) {}
  }
  for (let i = 0; i < 300; i++) {  // up to 30 s: CI checks pages while other stages load the machine
    const divs = [...document.querySelectorAll('.plotly-graph-div')];
    if (divs.every((d) => d.querySelector('.main-svg'))) break;
    if (divs.length && !window.Plotly && i > 10) break;
    await sleep(100);
  }
}
"""

_AXE_JS = r"""
async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(' '), impact: n.impact || v.impact}))}));
}
"""


def _page_ids(build: Path, rel: str, cache: dict) -> set[str]:
    if rel not in cache:
        path = build / rel
        cache[rel] = set(_ID_RE.findall(path.read_text(encoding="utf-8", errors="replace"))) if path.is_file() else None
    return cache[rel]


def _link_problems(build: Path, base: str, page: str, hrefs: list[str], cache: dict) -> list[str]:
    """Links from ``page`` to a missing page of the build or a missing anchor."""
    bad = []
    for href in sorted(set(hrefs)):
        if not href.startswith(base):
            continue  # off-site links are not followed (the browser has no network)
        parts = urlsplit(href)
        rel = unquote(parts.path).lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        target = build / rel
        if target.is_dir():
            target, rel = target / "index.html", rel.rstrip("/") + "/index.html"
        if not target.is_file():
            bad.append(f"{href[len(base):]} (no such file)")
            continue
        fragment = unquote(parts.fragment)
        if fragment and rel.endswith(".html"):
            ids = _page_ids(build, rel, cache)
            if ids is not None and fragment not in ids:
                bad.append(f"{href[len(base):]} (no anchor #{fragment})")
    return bad


def check_site(build: Path, *, withheld: bool = False, chromium: str | None = None, axe: Path | None = None,
               allowlist: list[dict] | None = None, pages: list[str] | None = None,
               widths: tuple[str, ...] = ("desktop", "phone"), axe_widths: tuple[str, ...] = ("desktop", "phone"),
               progress=None) -> Report:
    """Check ``pages`` (default: every page) of the built HTML in ``build``; returns a :class:`Report`."""
    from playwright.sync_api import sync_playwright

    build = Path(build).resolve()
    if not (build / "index.html").is_file() and not pages:
        raise FileNotFoundError(f"{build} has no index.html: build the book first (see README)")
    chromium = chromium or find_chromium()
    if chromium is None:
        raise FileNotFoundError("no chromium found: install Debian's chromium or set CHROMIUM")
    axe_source = Path(axe).read_text(encoding="utf-8") if axe else None
    allowlist = allowlist or []
    report = Report(pages=list(pages if pages is not None else pages_of(build)))
    server = _serve(build)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    ids_cache: dict = {}
    current: dict = {}

    def add(category, detail):
        report.problems.append(Problem(current["page"], current["width"], category, detail))

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            for width in widths:
                w, h = WIDTHS[width]
                phone = width == "phone"
                context = browser.new_context(viewport={"width": w, "height": h}, is_mobile=phone, has_touch=phone,
                                              device_scale_factor=1, service_workers="block")

                def route(r):
                    if r.request.url.startswith(base):
                        r.continue_()
                    else:
                        add("failed request", f"network blocked: {r.request.url[:120]}")
                        r.abort()

                context.route("**/*", route)
                page = context.new_page()
                page.on("console", lambda m: m.type == "error" and not m.text.startswith("Failed to load resource")
                        and add("console error", m.text[:200]))
                page.on("pageerror", lambda e: add("page error", str(e)[:200]))
                page.on("requestfailed", lambda r: r.url.startswith(base)
                        and add("failed request", f"{r.url[len(base):]}: {r.failure}"))
                page.on("response", lambda r: r.status >= 400 and add("failed request", f"{r.url[len(base):]}: HTTP {r.status}"))
                for rel in report.pages:
                    current.update(page=rel, width=width)
                    if progress:
                        progress(f"{width} {rel}")
                    try:
                        page.goto(base + rel, wait_until="load", timeout=60_000)
                        page.evaluate(_WAIT_JS)
                        page.wait_for_timeout(100)
                        found = page.evaluate(_INSPECT_JS, {"phone": phone, "withheld": withheld})
                    except Exception as exc:  # a page that does not load at all
                        add("page error", f"did not load: {exc}"[:200])
                        continue
                    for item in found["math"]:
                        add("untypeset math", item)
                    for item in found["images"]:
                        add("broken image", str(item))
                    for item in found["plotly"]:
                        add("undrawn figure", item)
                    for item in found["wide"]:
                        add("page too wide", item)
                    if not phone:
                        for item in found["equations"]:
                            add("wide equation", item)
                    for item in found["answers"]:
                        add("visible answer", item)
                    if not phone:
                        for item in found["dupes"]:
                            add("duplicate id", item)
                        for item in _link_problems(build, base, rel, found["links"], ids_cache):
                            add("broken link", item)
                    if axe_source and width in axe_widths:
                        page.add_script_tag(content=axe_source)
                        for violation in page.evaluate(_AXE_JS):
                            for node in violation["nodes"]:
                                impact = node["impact"] or "minor"
                                report.axe_impacts[impact] += 1
                                if impact not in SERIOUS:
                                    continue
                                problem = Problem(rel, width, "axe",
                                                  f"{impact} {violation['id']} at {node['target'][:100]}: {violation['help']}")
                                if allowed_by(allowlist, violation["id"], node["target"]):
                                    report.allowed.append(problem)
                                else:
                                    report.problems.append(problem)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return report


def summary(report: Report) -> str:
    lines = [f"pages: {len(report.pages)}"]
    lines += [f"{category}: {n}" for category, n in report.counts().items()]
    impacts = ", ".join(f"{k} {report.axe_impacts.get(k, 0)}" for k in ("critical", "serious", "moderate", "minor"))
    lines.append(f"axe violation nodes by impact (all): {impacts}")
    allowed = Counter(p.detail.split(" at ")[0] for p in report.allowed)
    lines.append("allow-listed: " + (", ".join(f"{k} ({n})" for k, n in sorted(allowed.items())) or "none"))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", nargs="?", default=str(ROOT / "_build" / "html"), help="built HTML (default _build/html)")
    parser.add_argument("--solutions-withheld", action="store_true", help="the build hides solutions: none may appear")
    parser.add_argument("--axe", default=None, help="axe.min.js (default $AXE_CORE_JS or _build/.tools/...)")
    parser.add_argument("--no-axe", action="store_true", help="skip the accessibility check")
    parser.add_argument("--allowlist", default=str(DEFAULT_ALLOWLIST), help="allowed upstream axe violations")
    parser.add_argument("--page", action="append", help="check only this page (repeatable)")
    parser.add_argument("--width", action="append", choices=sorted(WIDTHS), help="only this width (repeatable)")
    parser.add_argument("--json", help="write every problem and the counts here")
    args = parser.parse_args(argv)

    axe = None
    if not args.no_axe:
        axe = Path(args.axe) if args.axe else find_axe()
        if axe is None or not axe.is_file():
            parser.error("axe-core not found: npm install --prefix _build/.tools axe-core, or pass --axe / --no-axe")
    report = check_site(Path(args.build), withheld=args.solutions_withheld, axe=axe,
                        allowlist=load_allowlist(Path(args.allowlist)), pages=args.page,
                        widths=tuple(args.width or WIDTHS))
    for problem in report.problems:
        print(problem)
    print(summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": report.counts(), "axe_impacts": dict(report.axe_impacts),
                                               "problems": [asdict(p) for p in report.problems],
                                               "allowed": [asdict(p) for p in report.allowed]}, indent=1))
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
