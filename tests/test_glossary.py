"""The glossary and its links: every term a chapter uses is linked to the glossary where the chapter first uses it.

The rule: in each chapter ``book/NN_*.ipynb``, reading the markdown cells in order, the first
occurrence of a glossary term -- its entry name or one of the aliases in ``ALIASES`` below, case-insensitive, as
whole words -- must be a ``{term}`` link to that entry. Later plain mentions are fine.

What is read as prose: markdown text, including the text of ``{exercise}``, ``{solution}``, ``{prf:...}`` and
admonition directives. What is not: code spans and fenced code, math (``$...$``, ``$$...$$``, ``{math}`` blocks,
``\\begin{...}`` environments), the targets of links and the content of roles other than ``{term}`` (``{cite}``,
``{ref}``, ...), directive options (``:label: ...``), MyST targets ``(label)=``, HTML comments, headings (a link in
a title would also land in the table of contents; the first use in the text below is linked instead) and markdown
cells the build removes (tags ``remove-cell``).

Matching details: a space or hyphen in a name also matches a hyphen, an en dash or a space ("random-forest",
"bias-variance"); a plural "s" (or "es" after s, x, z, ch, sh) is matched automatically; emphasis marks are ignored
("**calibration** set"); a match must not touch a letter, digit or underscore, so identifiers such as
``max_bootstrap_rows`` are not uses; where two matches overlap, the longer wins ("nested cross-validation" is not a
use of "cross-validation", "Bayesian CART" not of "CART"). ``NOT_TERMS`` lists phrases that contain a term's word but
mean something else; they shadow the term the same way.

Per-chapter term lists: ``tests/first_use_terms/NN.txt`` names, one per line (``#`` starts a comment), the technical
terms chapter ``NN`` must define or link at first use (see ``tests/first_use_terms/README.md``). Each listed term
must be a glossary entry or an alias in ``ALIASES`` and must occur in the chapter's prose, and its first use must be
a ``{term}`` link to its entry: a term the chapter uses before defining or linking it fails the test, and so does a
listed term the glossary lacks (add the entry) or the chapter never uses (drop it from the list).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
GLOSSARY = BOOK / "glossary.md"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))

# Entry name -> other spellings a chapter may use for it (plural "s"/"es" and space/hyphen/dash variants are
# added automatically; matching is case-insensitive). Kept explicit so that a reader of this test sees what counts
# as a use.
ALIASES: dict[str, tuple[str, ...]] = {
    # basics (chapters 1-3)
    "CART": ("classification and regression trees", "classification and regression tree"),
    "Gini impurity": ("Gini index", "Gini"),
    "bootstrap": ("bootstrapped", "bootstrapping", "bootstrap sample", "bootstrap resample"),
    "random forest": (),
    "gradient boosting": ("gradient-boosted", "gradient boosted", "gradient boosting machine", "GBM"),
    "bias–variance trade-off": ("bias–variance tradeoff", "bias–variance decomposition", "bias–variance"),
    "cross-validation": ("cross-validated", "cross-validate", "cross-validating"),
    "permutation importance": ("permutation feature importance",),
    "impurity decrease": ("decrease in impurity",),
    "impurity importance": ("impurity-based importance", "mean decrease in impurity", "MDI"),
    "partial dependence": ("partial dependence plot",),
    "shrinkage": (),
    "pseudo-residual": (),
    "GOSS": ("gradient-based one-side sampling",),
    "EFB": ("exclusive feature bundling",),
    "ordered boosting": (),
    "target leakage": (),
    "log loss": ("logistic loss",),
    "isotonic regression": ("isotonic",),
    "Platt scaling": ("Platt",),
    "quantile regression": ("pinball loss", "quantile loss"),
    "reliability diagram": (),
    "bagging": ("bagged", "bootstrap aggregating", "bootstrap aggregation"),
    "out-of-bag error": ("out-of-bag", "OOB", "out-of-bag score"),
    "early stopping": ("stopped early", "stops early"),
    "target encoding": ("target statistics", "target statistic", "target-encoded", "target encoder"),
    "monotonic constraint": ("monotone constraint", "monotonicity constraint", "monotonic constraints"),
    "missing-value routing": (),
    "MCAR, MAR, MNAR": (
        "MCAR", "MAR", "MNAR", "missing completely at random", "missing at random", "missing not at random",
    ),
    "SHAP value": ("SHAP", "Shapley value"),
    "interventional vs path-dependent": ("interventional", "path-dependent"),
    "calibration": ("calibrated", "miscalibrated", "miscalibration", "recalibration", "recalibrated"),
    "Brier score": ("Brier",),
    "conformal prediction": ("conformal", "conformalized", "split conformal"),
    "nested cross-validation": ("nested CV",),
    "successive halving": (),
    "TPE": ("tree-structured Parzen estimator",),
    # chapter 8
    "NTK": ("neural tangent kernel",),
    "kernel ridge": ("kernel ridge regression", "kernel regression"),
    "soft tree": ("soft decision tree", "soft-tree"),
    "split softness": ("softness",),
    "axis-aligned split": ("axis-aligned",),
    "oblique split": ("oblique",),
    "AAA and AAI": ("AAA", "AAI"),
    "oblivious tree": ("oblivious",),
    "lazy training": ("lazy regime", "lazy-training"),
    "Gram matrix": ("Gram matrices",),
    "positive semi-definite": ("positive semidefinite", "positive semi-definiteness", "PSD", "semi-definite"),
    "multiple kernel learning": ("MKL",),
    "EasyMKL": (),
    "kernel alignment": ("kernel-target alignment", "centred alignment", "centered alignment"),
    "KL divergence": ("Kullback–Leibler divergence", "Kullback–Leibler"),
    "SVM": ("support vector machine",),
    "Kraft's equality": ("Kraft equality", "Kraft's inequality", "Kraft"),
    "z-score": ("z-scored", "z-scoring", "z-scores"),
    # chapter 9
    "leaf embedding": ("decision tree embedding", "DTE"),
    "LDA": ("linear discriminant analysis",),
    "Moore–Penrose pseudo-inverse": ("pseudo-inverse", "pseudoinverse", "Moore–Penrose"),
    "Voronoi condition": ("Voronoi",),
    "supervised dimension reduction": ("supervised dimensionality reduction",),
    "RBF anchors": ("RBF anchor",),
    "multilayer perceptron": ("multi-layer perceptron",),
    # chapter 10
    "Bayesian CART": (),
    "CGM": (),
    "posterior predictive": (),
    "HMC": ("Hamiltonian Monte Carlo",),
    "NUTS": ("No-U-Turn Sampler", "No-U-Turn"),
    "burn-in": ("burnin",),
    "R-hat": ("R̂", "Rhat"),
    "ESS": ("effective sample size", "bulk-ESS", "bulk ESS"),
    "detailed balance": (),
    "Metropolis–Hastings": (),
    "Metropolis-within-Gibbs": ("Metropolis within Gibbs",),
    "Dirichlet–multinomial": (),
    "acceptance ratio": ("acceptance probability",),
    "reversible jump": ("reversible-jump",),
    "dual averaging": ("dual-averaging",),
    "mass matrix": (),
    "nats": ("nat",),
    "Peskun ordering": ("Peskun",),
}

# Phrases that contain a term's word but are not a use of the term; they shadow the shorter match. None is needed
# in the book today: the conformal "calibration set" is linked to the calibration entry, which explains that sense.
NOT_TERMS: tuple[str, ...] = ()

_SEP = r"[\s\-\u2010\u2011\u2013\u2014]+"  # a space, hyphen or dash in a name matches any of them


def glossary_entries(text: str | None = None) -> list[str]:
    """Entry names of the ``{glossary}`` directive in book/glossary.md, in file order."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    match = re.search(r"^```\{glossary\}\s*$(.*?)^```\s*$", text, re.S | re.M)
    assert match, "book/glossary.md has no {glossary} directive"
    names = []
    for line in match.group(1).splitlines():
        if line.strip() and not line[0].isspace() and not line.startswith(":"):
            names.append(line.strip())
    return names


def _phrase_pattern(phrase: str) -> str:
    parts = [re.escape(p) for p in re.split(r"[\s\-\u2010\u2011\u2013\u2014]+", phrase) if p]
    plural = r"(?:es)?" if re.search(r"(s|x|z|ch|sh)$", phrase, re.I) else r"s?"
    return _SEP.join(parts) + plural


def build_matcher(entries: list[str], not_terms: tuple[str, ...] = NOT_TERMS) -> list[tuple[re.Pattern, str | None]]:
    """One compiled pattern per spelling, with the entry it means (None for a NOT_TERMS phrase)."""
    spellings: list[tuple[str, str | None]] = []
    for name in entries:
        spellings.append((name, name))
        spellings += [(alias, name) for alias in ALIASES.get(name, ())]
    spellings += [(phrase, None) for phrase in not_terms]
    return [
        (re.compile(r"(?<![\w\u0300-\u036f])" + _phrase_pattern(s) + r"(?![\w\u0300-\u036f])", re.I), name)
        for s, name in spellings
    ]


# --- turning a markdown cell into the prose the rule reads -------------------------------------------------------

_TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")


def _term_target(content: str) -> str:
    m = re.fullmatch(r"\s*(.*?)\s*<([^<>]+)>\s*", content, re.S)
    return (m.group(2) if m else content).strip()


def prose(markdown: str) -> tuple[str, list[str]]:
    """The prose of a markdown cell with every non-prose part blanked (same length, so positions keep their order).

    A ``{term}`` link is replaced by its shown text (padded); the second value lists (start, end, entry) of each.
    """
    text = markdown
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    # fenced blocks: code and math are blanked; directives keep their body (the text of an exercise is prose)
    out: list[str] = []
    stack: list[tuple[str, bool]] = []  # open fences: (fence characters, is a directive whose body is prose)
    for line in text.split("\n"):
        stripped = line.strip()
        inside_prose = all(is_directive for _, is_directive in stack)
        if stack and stripped.startswith(stack[-1][0]) and stripped.strip(stack[-1][0][0]) == "":
            stack.pop()
            out.append(" " * len(line))
            continue
        opener = re.match(r"^(`{3,}|~{3,}|:{3,})\s*(\{[^}]*\})?", stripped)
        if opener and inside_prose:
            directive = (opener.group(2) or "").strip("{}")
            is_code = not directive or directive in {"code-cell", "code", "code-block", "math", "raw"}
            stack.append((opener.group(1), not is_code))
            out.append(" " * len(line))
            continue
        if not inside_prose:
            out.append(" " * len(line))
        elif stack and re.match(r"^\s*:[\w-]+:", line):
            out.append(" " * len(line))  # a directive option such as ":label: ch1-ex-depth"
        elif re.match(r"^\s*#{1,6}\s", line) or re.match(r"^\s*\([^)]*\)=\s*$", line):
            out.append(" " * len(line))  # a heading, or a MyST target "(label)="
        else:
            out.append(line)
    text = "\n".join(out)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", blank, text, flags=re.S)
    text = re.sub(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", blank, text, flags=re.S)
    links: list[tuple[int, int, str]] = []

    def keep_term(m: re.Match) -> str:
        content = m.group(1)
        shown = re.sub(r"\s*<[^<>]+>\s*$", "", content).strip() if content.rstrip().endswith(">") else content.strip()
        links.append((m.start(), m.start() + len(shown), _term_target(content)))
        return shown + " " * (len(m.group(0)) - len(shown))

    text = _TERM_ROLE.sub(keep_term, text)
    text = re.sub(r"\{[\w:.-]+\}`[^`]*`", blank, text)  # other roles: {cite}, {ref}, {numref}, {prf:ref}, ...
    text = re.sub(r"(`+).+?\1", blank, text, flags=re.S)  # code spans
    text = re.sub(r"(?<![\\$])\$(?!\$)(?:\\.|[^$\\])+?\$", blank, text)  # inline math
    text = re.sub(r"\]\([^)]*\)", lambda m: "]" + " " * (len(m.group(0)) - 1), text)  # link targets
    text = re.sub(r"<https?://[^>]*>", blank, text)
    text = text.replace("*", " ")  # emphasis marks: "**calibration** set" reads as "calibration set"
    return text, links


def first_uses(cells: list[str], matcher) -> dict[str, tuple[bool, int, str]]:
    """Entry -> (linked, cell index, context) of its first occurrence in the given markdown cells.

    A match inside the shown text of a ``{term}`` link counts as linked only when the link points to the match's
    entry; a link whose shown text matches none of its entry's spellings ("leaf means" for *leaf embedding*) counts
    as a linked use of its entry where it stands.
    """
    seen: dict[str, tuple[bool, int, str]] = {}
    for index, source in enumerate(cells):
        text, links = prose(source)
        spans = []
        for pattern, entry in matcher:
            for m in pattern.finditer(text):
                spans.append((m.start(), m.end(), entry))
        # the longest match wins where matches overlap
        spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
        taken: list[tuple[int, int]] = []
        events: list[tuple[int, str, bool, int]] = []  # (start, entry, linked, end)
        for start, end, entry in spans:
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            if entry is None:
                continue
            linked = any(l_start <= start and end <= l_end and target == entry for l_start, l_end, target in links)
            events.append((start, entry, linked, end))
        for l_start, _, target in links:
            if not any(linked and entry == target for _, entry, linked, _ in events):
                events.append((l_start, target, True, l_start))
        for start, entry, linked, end in sorted(events, key=lambda e: (e[0], not e[2])):
            if entry in seen:
                continue
            if linked:
                context = "{term} link"
            else:
                word = " ".join(source[start:end].replace("*", "").split())
                role = f"{{term}}`{word}`" if word == entry else f"{{term}}`{word} <{entry}>`"
                before = text[max(0, start - 50) : start].replace("\n", " ")
                context = f"...{before.strip()} [{source[start:end]}]... -> {role}"
            seen[entry] = (linked, index, context)
    return seen


def markdown_cells(path: Path) -> list[tuple[int, str]]:
    """(index in the notebook, source) of each markdown cell the build keeps."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for number, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        source = cell["source"]
        cells.append((number, "".join(source) if isinstance(source, list) else source))
    return cells


def unlinked_first_uses(
    path: Path, entries: list[str] | None = None, not_terms: tuple[str, ...] = NOT_TERMS
) -> list[str]:
    """One message per glossary term whose first use in the chapter at ``path`` is not a {term} link to it."""
    entries = glossary_entries() if entries is None else entries
    cells = markdown_cells(path)
    uses = first_uses([source for _, source in cells], build_matcher(entries, not_terms))
    return [
        f"{entry!r} first used unlinked in cell {cells[index][0]}: {context}"
        for entry, (linked, index, context) in uses.items()
        if not linked
    ]


# --- the tests -----------------------------------------------------------------------------------------------------


def test_glossary_has_at_least_50_entries():
    entries = glossary_entries()
    assert len(entries) >= 50, f"the glossary has {len(entries)} entries"
    assert len(set(entries)) == len(entries), "duplicate glossary entries"


def test_alias_table_names_existing_entries():
    entries = set(glossary_entries())
    assert not set(ALIASES) - entries, f"aliases for entries that do not exist: {sorted(set(ALIASES) - entries)}"
    spellings = [s.lower() for name in ALIASES for s in (name, *ALIASES[name])]
    assert len(spellings) == len(set(spellings)), "a spelling is the alias of two entries"


def test_every_entry_names_a_chapter():
    text = GLOSSARY.read_text(encoding="utf-8")
    body = re.search(r"^```\{glossary\}\s*$(.*?)^```\s*$", text, re.S | re.M).group(1)
    blocks = re.split(r"\n(?=\S)", body.strip())
    for block in blocks:
        if block.startswith(":"):
            continue
        assert re.search(r"chapters? \d+", block, re.I), f"glossary entry without its chapter: {block.splitlines()[0]}"


def test_every_term_link_has_a_glossary_entry():
    entries = set(glossary_entries())
    missing = []
    for path in [*CHAPTERS, *sorted(BOOK.glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            nb = json.loads(text)
            text = "\n".join("".join(c["source"]) for c in nb["cells"])
        for m in _TERM_ROLE.finditer(text):
            target = _term_target(m.group(1))
            if target not in entries:
                missing.append(f"{path.name}: {{term}}`{m.group(1)}`")
    assert not missing, "links to terms the glossary does not define:\n" + "\n".join(missing)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_first_use_of_each_term_is_linked(chapter):
    problems = unlinked_first_uses(chapter)
    assert not problems, "wrap the first use in {term}`...`:\n" + "\n".join(problems)


# --- the rule checked on synthetic cells ---------------------------------------------------------------------------


def _synthetic(tmp_path: Path, cells: list[str]) -> Path:
    nb = {
        "cells": [{"cell_type": "markdown", "id": f"c{i}", "metadata": {}, "source": s} for i, s in enumerate(cells)],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "99_synthetic.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


ENTRIES = ["bootstrap", "random forest", "cross-validation", "nested cross-validation", "calibration", "R-hat", "CART",
           "Bayesian CART"]


def test_rule_fails_when_a_term_precedes_its_link(tmp_path):
    path = _synthetic(tmp_path, ["A bootstrap sample is drawn.", "Now the {term}`bootstrap` itself."])
    problems = unlinked_first_uses(path, ENTRIES)
    assert len(problems) == 1 and "'bootstrap'" in problems[0] and "cell 0" in problems[0]


def test_rule_passes_when_the_link_comes_first(tmp_path):
    path = _synthetic(
        tmp_path, ["Each tree sees a {term}`bootstrap <bootstrap>` resample.", "Bootstrapping again, unlinked."]
    )
    assert unlinked_first_uses(path, ENTRIES) == []


def test_rule_sees_aliases_plurals_and_case(tmp_path):
    for text in ["Random Forests are bagged trees.", "A random-forest model.", "R̂ is close to 1."]:
        assert unlinked_first_uses(_synthetic(tmp_path, [text]), ENTRIES), text


def test_rule_ignores_code_math_targets_options_and_headings(tmp_path):
    cells = [
        "# Random forests\n\nWe call `RandomForestRegressor(bootstrap=True)` and `bootstrap`.",
        "$\\text{bootstrap}$ and $$\\text{cross-validation}$$ and [see](bootstrap.html) {ref}`bootstrap`",
        "```python\nbootstrap = 1\n```\n```{exercise}\n:label: bootstrap-ex\nNo term here.\n```",
        "<!-- bootstrap -->\n(bootstrap)=\nmax_bootstrap_rows is an identifier, not prose.",
    ]
    assert unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES) == []


def test_rule_reads_directive_bodies(tmp_path):
    cells = ["```{exercise}\n:label: ch1-ex\nDraw a bootstrap sample.\n```", "The {term}`bootstrap`."]
    assert unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES)


def test_longer_terms_and_not_terms_shadow_shorter_ones(tmp_path):
    cells = [
        "{term}`nested cross-validation` scores tuning. {term}`Bayesian CART` is a prior.",
        "A calibration set is held out.",
        "Then {term}`cross-validation`, {term}`CART` and {term}`calibration`.",
    ]
    assert unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES, not_terms=("calibration set",)) == []
    assert unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES)  # without the not-term "calibration set"
    cells = ["{term}`Bayesian CART` is a prior on CART trees."]
    problems = unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES)
    assert len(problems) == 1 and "'CART'" in problems[0]


def test_a_link_to_another_entry_does_not_count(tmp_path):
    cells = ["Each tree sees a {term}`bootstrap <random forest>` sample.", "The {term}`bootstrap`."]
    problems = unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES)
    assert len(problems) == 1 and "'bootstrap'" in problems[0]


def test_rule_sees_emphasised_terms(tmp_path):
    cells = ["A *bootstrap* sample and **random forests**.", "{term}`bootstrap`, {term}`random forest`."]
    assert len(unlinked_first_uses(_synthetic(tmp_path, cells), ENTRIES)) == 2


# --- per-chapter lists of terms defined or linked at first use ------------------------------------------------------

TERM_LISTS_DIR = Path(__file__).resolve().parent / "first_use_terms"
TERM_LISTS = sorted(TERM_LISTS_DIR.glob("[0-9][0-9].txt"))


def read_term_list(path: Path) -> list[str]:
    """The terms of a list file: one per line, ``#`` to the end of a line is a comment, blank lines skipped."""
    terms = []
    for line in path.read_text(encoding="utf-8").splitlines():
        term = line.split("#", 1)[0].strip()
        if term:
            terms.append(term)
    return terms


def chapter_of(term_list: Path, book: Path = BOOK) -> Path:
    """The chapter notebook ``book/NN_*.ipynb`` a list file ``NN.txt`` belongs to."""
    matches = sorted(book.glob(f"{term_list.stem}_*.ipynb"))
    assert len(matches) == 1, f"{term_list.name}: expected one chapter book/{term_list.stem}_*.ipynb, got {matches}"
    return matches[0]


def term_list_problems(terms: list[str], chapter: Path, entries: list[str] | None = None,
                       not_terms: tuple[str, ...] = NOT_TERMS) -> list[str]:
    """One message per listed term that is not a glossary entry or alias, not used in ``chapter``'s prose, or
    whose first use there is not a ``{term}`` link to its entry."""
    entries = glossary_entries() if entries is None else entries
    entry_of = {name.lower(): name for name in entries}
    entry_of.update({alias.lower(): name for name in entries for alias in ALIASES.get(name, ())})
    cells = markdown_cells(chapter)
    uses = first_uses([source for _, source in cells], build_matcher(entries, not_terms))
    problems = []
    for term in dict.fromkeys(terms):
        entry = entry_of.get(term.lower())
        if entry is None:
            problems.append(f"{term!r} is neither a glossary entry nor an alias in ALIASES: add it to "
                            "book/glossary.md (or its spelling to ALIASES)")
        elif entry not in uses:
            problems.append(f"{term!r} ({entry!r}) does not occur in the prose of {chapter.name}: drop it from "
                            "the list or use it")
        elif not uses[entry][0]:
            linked, index, context = uses[entry]
            problems.append(f"{term!r} is used before it is linked, in cell {cells[index][0]}: {context}")
    return problems


def test_term_lists_name_existing_chapters_without_duplicates():
    for path in TERM_LISTS:
        chapter_of(path)
        terms = [t.lower() for t in read_term_list(path)]
        assert len(terms) == len(set(terms)), f"{path.name} lists a term twice"


@pytest.mark.parametrize("term_list", TERM_LISTS, ids=[p.stem for p in TERM_LISTS])
def test_listed_terms_are_defined_or_linked_at_first_use(term_list):
    problems = term_list_problems(read_term_list(term_list), chapter_of(term_list))
    assert not problems, f"{term_list.name}:\n" + "\n".join(problems)


def test_term_list_reader_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "99.txt"
    path.write_text("# chapter 99\nbootstrap\n\n  random forest  # bagged trees\n#CART\n", encoding="utf-8")
    assert read_term_list(path) == ["bootstrap", "random forest"]


def test_term_list_fails_when_a_listed_term_is_used_before_its_link(tmp_path):
    path = _synthetic(tmp_path, ["We fit a random forest.", "A {term}`random forest` averages trees."])
    problems = term_list_problems(["random forest"], path, ENTRIES)
    assert len(problems) == 1 and "used before it is linked" in problems[0] and "cell 0" in problems[0], problems
    # the same chapter with the link at the first use passes
    path = _synthetic(tmp_path, ["We fit a {term}`random forest`.", "A random forest averages trees."])
    assert term_list_problems(["random forest"], path, ENTRIES) == []


def test_term_list_fails_for_a_term_outside_the_glossary_or_the_chapter(tmp_path):
    path = _synthetic(tmp_path, ["A {term}`bootstrap` sample."])
    problems = term_list_problems(["bootstrap", "sigma-algebra", "CART"], path, ENTRIES)
    assert len(problems) == 2, problems
    assert "'sigma-algebra' is neither a glossary entry" in problems[0]
    assert "'CART' ('CART') does not occur" in problems[1]


def test_term_list_accepts_an_alias_and_checks_its_entry(tmp_path):
    # "bootstrap sample" is an alias of the entry "bootstrap": its first use must be a link to that entry
    assert term_list_problems(["bootstrap sample"], _synthetic(tmp_path, ["A {term}`bootstrap` draw."]),
                              ENTRIES) == []
    chapter = _synthetic(tmp_path, ["Bootstrapping, then {term}`bootstrap`."])
    problems = term_list_problems(["Bootstrap sample"], chapter, ENTRIES)
    assert len(problems) == 1 and "used before it is linked" in problems[0]
