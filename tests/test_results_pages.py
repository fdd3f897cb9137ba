"""The benchmark results pages: their links resolve, and the figures other pages quote from them are theirs.

Notes page 14 states three measured figures of the Bayesian sampler that no shipped recording holds (they come from
benchmark runs, and a chapter may not read the repository's files): the cost per iteration against the sampler
before the kernel work, the HMC-DFI / HMC-DF ratio on the collinear data and the long protocol's CPU time. This test
holds the page's prose to the results pages, so that a re-measured page and the notes cannot drift apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CONTRIBUTING.md", *sorted(RESULTS.glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation other than - and _ dropped, spaces to -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        path, _, anchor = target.partition("#")
        dest = (page.parent / path) if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md":
            headings = [_slug(h) for h in re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)]
            if anchor not in headings:
                broken.append(target)
    assert not broken, f"{page.name}: links to nothing: {broken}"


def _notes_markdown() -> str:
    nb = json.loads((ROOT / "book" / "14_bayes_reproduction_notes.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_notes_page_quotes_the_measured_figures_of_the_results_pages():
    notes = _notes_markdown()
    bayes = (RESULTS / "bayes.md").read_text(encoding="utf-8")
    reproduce = (RESULTS / "reproduce_rjhmc.md").read_text(encoding="utf-8")
    against = bayes.split("<!-- section: against -->")[1].split("<!-- end section: against -->")[0]
    ratios = [r for r in re.findall(r"\*\*(\d\.\d\d)\*\*", against)]
    assert len(ratios) >= 2, "bayes.md's 'against' table lost its ratio column"
    for ratio in ratios[:2]:
        assert f"{ratio}×" in notes, f"the notes page does not quote bayes.md's {ratio}× per iteration"
    collinear = re.search(r"HMC-DFI costs (\d+\.\d)× what HMC-DF costs on the collinear data", bayes)
    assert collinear and f"{collinear.group(1)} times an HMC-DF one" in notes
    cpu_hours = re.search(r"total \d+ = (\d\.\d\d) CPU-hours", reproduce)
    assert cpu_hours and f"{cpu_hours.group(1)} CPU-hours" in notes
