"""Nothing a reader or user sees tells how the project was built.

The book (markdown pages; notebook markdown *and* code, comments and strings included), the README, CHANGELOG,
ARCHITECTURE and CONTRIBUTING files, the benchmark results pages, and the docstrings and comments of the library
and of the benchmark scripts are scanned for words about how the work was organised: commit hashes, "round N",
"session N" / "this session", "reviewer", "issue N" and a few others. Every hit is reported with its file and line.

The scanner itself is tested on synthetic text (each pattern must fire, and the known look-alikes must not), so the
scan of the tree can fail.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"

# (name, pattern); every pattern is matched case-insensitively except the commit hash (hashes are lower case,
# and upper-case hex words are constants, not hashes)
PATTERNS = [
    ("round N", re.compile(rf"\bround\s+(?:\d+|{_NUMBER_WORDS})\b|\bsince\s+round\b|\brounds?\s+\d+\s*[-–]\s*\d+\b",
                           re.I)),
    # "one session" / "that session" / "a Python session" stay allowed: the exercise checker counts a student's
    # attempts per Python session, a term the instructors' page and the checker use
    ("session", re.compile(r"\bsessions?\s+#?\d+\b|\b(?:this|earlier|previous|last|next|later)\s+session\b", re.I)),
    ("reviewer", re.compile(r"\breviewers?\b", re.I)),
    ("issue N", re.compile(r"\bissues?\s*#?\s*\d+\b|\bitem\s+\d+\s+of\s+issue\b", re.I)),
    ("process word", re.compile(r"\blead\s+engineer\b|\blanded\s+(?:code|change|commit)s?\b|\bthe\s+brief\b|"
                                r"\bhelper\s+(?:session|engineer|agent)s?\b|\bpull\s+request\s+#\d+", re.I)),
]

# a commit hash: a whole word of 7 to 40 hex digits holding a digit and a letter a-f. Not preceded by '#' (a
# hex colour such as #1f77b4ff) or by a word character ("0x1f2e3d4c" is a literal, part of a longer word
# otherwise); pure digits and scientific notation ("12345e6") have no hex letter besides 'e' between digits.
_HEX_WORD = re.compile(r"(?<![\w#])[0-9a-f]{7,40}(?![\w])")
_SCIENTIFIC = re.compile(r"^\d+e\d+$")


def _is_hash_like(token):
    return bool(re.search(r"\d", token)) and bool(re.search(r"[a-f]", token)) and not _SCIENTIFIC.match(token)


def scan_text(text):
    """``[(line number from 1, kind, matched text), ...]`` for every process-language hit in ``text``."""
    hits = []
    for n, line in enumerate(text.splitlines(), start=1):
        for kind, pat in PATTERNS:
            hits += [(n, kind, m.group(0)) for m in pat.finditer(line)]
        hits += [(n, "commit hash", m.group(0)) for m in _HEX_WORD.finditer(line) if _is_hash_like(m.group(0))]
    return hits


# --------------------------------------------------------------------------- what a reader sees, per file type
def _python_prose(path):
    """``[(line, text)]``: the docstrings (module, class, function) and comments of a Python file."""
    src = path.read_text(encoding="utf-8")
    out = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                out += [(first.lineno + i, line) for i, line in enumerate(first.value.value.splitlines())]
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    return out


def _notebook_text(path):
    """``[(location, text)]``: every line of every cell (markdown, and code with its comments and strings)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c, cell in enumerate(nb["cells"], start=1):
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        out += [(f"cell {c} ({cell['cell_type']}) line {i}", line) for i, line in enumerate(src.splitlines(), start=1)]
    return out


def _plain_text(path):
    return list(enumerate(path.read_text(encoding="utf-8").splitlines(), start=1))


def scanned_files():
    """The files a reader or user sees, each with the function that extracts its prose."""
    files = []
    files += [(p, _plain_text) for p in sorted((ROOT / "book").glob("*.md"))]
    files += [(p, _notebook_text) for p in sorted((ROOT / "book").glob("*.ipynb"))]
    files += [(ROOT / name, _plain_text) for name in ("README.md", "CHANGELOG.md", "ARCHITECTURE.md",
                                                      "CONTRIBUTING.md", "CITATION.cff")
              if (ROOT / name).exists()]
    files += [(p, _plain_text) for p in sorted((ROOT / "benchmarks" / "results").glob("*.md"))]
    files += [(p, _python_prose) for p in sorted((ROOT / "tabular_trees").rglob("*.py"))]
    files += [(p, _python_prose) for p in sorted((ROOT / "benchmarks").glob("*.py"))]
    return files


# Precise exceptions: (file relative to the root, kind, exact matched text, reason). Keep this list short.
ALLOWED = [
    # a SHA-256 prefix in the prose that explains how the exercise checker stores word answers would go here;
    # none is needed at present
]


def _allowed(rel, kind, text):
    return any(rel == f and kind == k and text == t for f, k, t, _ in ALLOWED)


def scan_tree():
    """``["file:location: kind 'match' in: line", ...]`` for the whole scanned tree."""
    report = []
    for path, extract in scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        for where, line in extract(path):
            for _, kind, text in scan_text(line):
                if not _allowed(rel, kind, text):
                    report.append(f"{rel}:{where}: {kind} {text!r} in: {line.strip()[:160]}")
    return report


# --------------------------------------------------------------------------- the scanner on synthetic text
@pytest.mark.parametrize("line, kind", [
    ("Re-measured at 5c8d2ad with the current code.", "commit hash"),
    ("against c3f02f2b9e1d0a4f6b7c8d9e0f1a2b3c4d5e6f70 (a full hash)", "commit hash"),
    ("### Changed (round 20)", "round N"),
    ("Bad input, round two: all-zero kernels", "round N"),
    ("nothing changed since round", "round N"),
    ("the work of rounds 3-5", "round N"),
    ("in session 4 the chapter was rewritten", "session"),
    ("as this session measured", "session"),
    ("an earlier session recorded it", "session"),
    ("the previous session left it", "session"),
    ("A reviewer asked for error bars", "reviewer"),
    ("Reviewers read notebooks with", "reviewer"),
    ("see issue 33 for the history", "issue N"),
    ("fixed in issue #12", "issue N"),
    ("Issues 25 and 26", "issue N"),
    ("as the lead engineer asked", "process word"),
    ("0.95x of the landed code's time", "process word"),
])
def test_scanner_finds_each_pattern(line, kind):
    assert kind in [k for _, k, _ in scan_text(line)], (line, scan_text(line))


@pytest.mark.parametrize("line", [
    "color='#1f77b4' and '#ff7f0e80'",          # hex colours, with and without alpha
    "learning rates 1e6 and 12345e6",           # scientific notation
    "x = 0x1f2e3d4c",                           # a hex literal
    "deadbeef and facade",                      # hex letters without a digit
    "1234567 rows",                             # digits without a hex letter
    "round(x, 2) and rounding to 3 digits",     # Python's round, rounding
    "around 3 minutes; a round trip",           # ordinary words
    "boosting rounds, the issue is that",       # 'issue' without a number
    "a Jupyter kernel restarts",                # no process word
    "answers one session may try; in that session",  # a student's Python session (the exercise checker)
])
def test_scanner_ignores_look_alikes(line):
    assert scan_text(line) == []


def test_scanner_reports_file_and_line_of_each_hit(tmp_path, monkeypatch):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "01_x.md").write_text("# Title\n\nAs a reviewer noted in round 3.\n", encoding="utf-8")
    nb = {"cells": [{"cell_type": "markdown", "source": ["ok\n"]},
                    {"cell_type": "code", "source": ["x = 1  # fixed at abc1234\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "book" / "02_y.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (tmp_path / "tabular_trees").mkdir()
    (tmp_path / "tabular_trees" / "m.py").write_text(
        '"""Module."""\n\n\ndef f():\n    """Since issue 7 this is fast."""\n    s = "session 2"  # a string: not prose\n'
        '    return s  # as this session showed\n', encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    report = scan_tree()
    assert any(r.startswith("book/01_x.md:3: reviewer") for r in report), report
    assert any(r.startswith("book/01_x.md:3: round N 'round 3'") for r in report), report
    assert any(r.startswith("book/02_y.ipynb:cell 2 (code) line 1: commit hash 'abc1234'") for r in report), report
    assert any(r.startswith("tabular_trees/m.py:5: issue N") for r in report), report
    assert any(r.startswith("tabular_trees/m.py:7: session") for r in report), report
    assert not any("session 2" in r for r in report), report  # code strings of modules are not prose
    assert len(report) == 5, report


# --------------------------------------------------------------------------- the tree
def test_no_process_language_in_what_readers_see():
    report = scan_tree()
    assert not report, "process language (how the project was built) in reader-facing text:\n" + "\n".join(report)
