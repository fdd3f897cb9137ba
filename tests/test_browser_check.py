"""tools/check_browser.py catches each kind of broken page it promises to catch, and passes a sound one.

The test writes a small site with one fault per page and runs the checker on it in Chromium. It is skipped when
Chromium, Playwright or axe-core is missing on this machine, except where ``TABULAR_TREES_REQUIRE_BROWSER=1``
(the CI browser stage sets it, after installing all three), where a missing one is a failure.
"""

import base64
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import check_browser  # noqa: E402

REQUIRED = os.environ.get("TABULAR_TREES_REQUIRE_BROWSER", "").strip() in {"1", "true", "yes"}
PNG = base64.b64decode(  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title></head>'
            f"<body><main><h1>{title}</h1>{body}</main></body></html>")


# page -> (body, the categories the checker must report for it, and no other)
BROKEN = {
    "sound.html": ('<p id="here">A sound page <a href="other.html#there">with a link</a>, '
                   '<img src="dot.png" alt="a dot"> and <code>tabular_trees.shapley.interventional_shapley</code>.</p>'
                   '<div class="math"><mjx-container display="true"><mjx-math style="display:inline-block;width:200px">'
                   "x</mjx-math></mjx-container></div>", set()),
    "other.html": ('<p id="there">The <a href="sound.html">other</a> sound page.</p>', set()),
    "console.html": ('<script>console.error("boom")</script><p>text</p>', {"console error"}),
    "exception.html": ('<script>undefined_function()</script><p>text</p>', {"page error"}),
    "request.html": ('<script src="missing.js"></script><p>text</p>', {"failed request"}),
    "offline.html": ('<img src="https://example.com/x.png" alt="remote"><p>text</p>', {"failed request", "broken image"}),
    "image.html": ('<img src="garbage.png" alt="garbage"><p>text</p>', {"broken image"}),
    "plotly.html": ('<div class="plotly-graph-div" id="fig" style="height:100px"></div>', {"undrawn figure"}),
    "math.html": ('<p>The mean <span class="math notranslate nohighlight">\\(\\bar x\\)</span>.</p>', {"untypeset math"}),
    "tex.html": ("<p>The covariance \\operatorname{Cov}(X, Y) read as prose.</p>", {"untypeset math"}),
    "link.html": ('<p><a href="nowhere.html">gone</a> and <a href="other.html#missing">no anchor</a></p>',
                  {"broken link"}),
    "wide.html": ('<div style="width:900px">a block wider than a phone</div>', {"page too wide"}),
    "equation.html": ('<div class="math" style="overflow-x:auto"><mjx-container display="true"><mjx-math style="display:inline-block;'
                      'width:2000px">x</mjx-math></mjx-container></div>', {"wide equation"}),
    "solution.html": ('<div class="cell tag_solution"><div class="cell_output"><pre>prevalence 0.136</pre></div></div>',
                      {"visible answer"}),
    "verdict.html": ('<div class="cell_output"><pre>✓ Exercise 7.2: right.</pre></div>', {"visible answer"}),
    "hidden.html": ('<div class="cell_input"><pre># Hidden checks of the text.\nassert True</pre></div>',
                    {"visible answer"}),
    "dupes.html": ('<p id="twice">one</p><p id="twice">two</p>', {"duplicate id"}),
    "axe.html": ('<p>An image without a text alternative: <img src="dot.png"></p>', {"axe"}),
}


def _missing():
    if check_browser.find_chromium() is None:
        return "chromium"
    if importlib.util.find_spec("playwright") is None:
        return "playwright (pip)"
    if check_browser.find_axe() is None:
        return "axe-core (npm install --prefix _build/.tools axe-core)"
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = _missing()
    if missing:
        if REQUIRED:
            pytest.fail(f"{missing} is missing, and TABULAR_TREES_REQUIRE_BROWSER=1 requires the browser check")
        pytest.skip(f"{missing} is not installed here")
    root = tmp_path_factory.mktemp("site")
    for name, (body, _) in BROKEN.items():
        (root / name).write_text(_page(name.removesuffix(".html"), body), encoding="utf-8")
    (root / "index.html").write_text(_page("index", "<p>index</p>"), encoding="utf-8")
    (root / "dot.png").write_bytes(PNG)
    (root / "garbage.png").write_bytes(b"this is not an image")
    return root


@pytest.fixture(scope="module")
def report(site):
    return check_browser.check_site(site, axe=check_browser.find_axe(), pages=sorted(BROKEN))


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_fault_is_caught_and_nothing_else(report, name):
    found = {p.category for p in report.problems if p.page == name}
    assert found == BROKEN[name][1], [str(p) for p in report.problems if p.page == name]


def test_every_category_is_exercised():
    covered = set().union(*(expected for _, expected in BROKEN.values()))
    assert covered == set(check_browser.CATEGORIES)


def test_solutions_withheld_flags_any_solution(site):
    (site / "withheld.html").write_text(_page("withheld", '<div class="solution dropdown"><p class="admonition-title">'
                                              'Solution</p><section style="display:none">42</section></div>'))
    report = check_browser.check_site(site, withheld=True, pages=["withheld.html", "sound.html"], widths=("desktop",))
    assert [(p.page, p.category) for p in report.problems] == [("withheld.html", "visible answer")]


def test_allowlist_needs_an_upstream_issue_and_filters_by_rule_and_target(tmp_path):
    entries = [{"rule": "image-alt", "target": "^img$", "upstream": "https://example.org/1", "why": "test"}]
    path = tmp_path / "allow.json"
    path.write_text(json.dumps(entries))
    loaded = check_browser.load_allowlist(path)
    assert check_browser.allowed_by(loaded, "image-alt", "img")
    assert not check_browser.allowed_by(loaded, "image-alt", "main > img")
    assert not check_browser.allowed_by(loaded, "button-name", "img")
    path.write_text(json.dumps([{"rule": "image-alt", "target": "img"}]))
    with pytest.raises(ValueError, match="upstream"):
        check_browser.load_allowlist(path)


def test_the_repository_allowlist_is_valid():
    for entry in check_browser.load_allowlist(check_browser.DEFAULT_ALLOWLIST):
        assert entry["upstream"].startswith("https://github.com/"), entry
