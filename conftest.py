"""Repository-wide pytest configuration.

Hypothesis runs derandomized (see below), so the test suite is deterministic like the chapters.

nbval runs each chapter notebook in a Jupyter kernel. By default kernels talk to pytest over TCP
on 127.0.0.1, which does not exist in a sandbox without any network (for example
``unshare -n pytest``). On POSIX systems we switch the kernels to the IPC transport (Unix-domain
sockets), so the whole suite — unit tests and notebooks — runs with no network interface at all.
"""

import atexit
import os
import shutil
import tempfile

try:
    from hypothesis import settings
except ImportError:  # the chapters-from-an-empty-directory run needs only nbval
    settings = None

if settings is not None:
    # Property tests draw the same examples on every run and every machine (a test run twice prints the same
    # result; a failure in CI reproduces locally). HYPOTHESIS_PROFILE=explore draws fresh examples instead.
    settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
    settings.register_profile("explore", deadline=None, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

if os.name == "posix":
    import jupyter_client.manager
    import nbval.kernel

    class _IPCKernelManager(jupyter_client.manager.KernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("transport", "ipc")
            # An absolute socket path: nbval starts the kernel in the notebook's folder, so a
            # relative path would name different sockets for the kernel and for pytest.
            socket_dir = tempfile.mkdtemp(prefix="nbval-")
            atexit.register(shutil.rmtree, socket_dir, ignore_errors=True)
            kwargs.setdefault("ip", os.path.join(socket_dir, "kernel"))
            super().__init__(**kwargs)

    nbval.kernel.KernelManager = _IPCKernelManager


# --- The book build reuses the chapters that nbval has just executed ----------------------------------------
# `pytest` runs every chapter of book/ in a kernel (nbval); `jupyter-book build` would run each one again in the
# same environment. Instead, a chapter whose every cell passed here is stored, with its outputs, in the book's
# jupyter-cache (myst-nb keeps it in the build folder's parent: _build/.jupyter_cache), keyed as jupyter-cache
# keys it: by the code cells' source and metadata. The next book build finds the chapter there and renders those
# outputs; a chapter whose code changed since, or that failed or was skipped here, is executed by the build itself.
# Only the repository's own book/ is cached (the chapters-from-an-empty-directory run in CI has no _config.yml).
import copy  # noqa: E402
import time  # noqa: E402

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no fcntl: cache writes are not locked there
    fcntl = None

import pytest  # noqa: E402

try:
    from nbval.plugin import IPyNbCell
except ImportError:  # pragma: no cover - nbval is part of the test extra
    IPyNbCell = None


# --- Chapters first, longest first --------------------------------------------------------------------------
# pytest-xdist (`--dist loadfile`) hands whole files to its workers in collection order, and a chapter runs whole on
# one worker. Collected last, in file-name order, a long chapter would start near the end and leave the other
# worker idle until it finishes; started first, the longest chapters overlap each other and the many short
# unit-test files fill in the end. The order below is the chapters' measured execution times, longest first
# (see the book's execution page); a notebook not listed follows them, and unit tests follow every notebook.
# The order changes nothing else: each test is independent, and a chapter's cells keep their order.
_LONGEST_CHAPTERS_FIRST = (
    "10_bayesian_trees", "12_ntk_reproduction_notes", "05_messy_tables", "03_boosting",
    "06_tuning_calibration_uncertainty", "08_tree_ntk", "02_bagging_random_forests", "07_alloy_lab",
)


def pytest_configure(config):
    # pytest-xdist would otherwise hand out files by their number of tests, largest first (its default
    # --loadscope-reorder), which ignores how long they take; this keeps the order set below.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        path = getattr(item, "path", None)
        if path is None or path.suffix != ".ipynb":
            return (1, 0)
        stem = path.stem
        return (0, _LONGEST_CHAPTERS_FIRST.index(stem) if stem in _LONGEST_CHAPTERS_FIRST else len(_LONGEST_CHAPTERS_FIRST))

    items.sort(key=rank)  # stable: the files' own order, and every cell's order within its chapter, are kept


class _ChapterRun:
    """What nbval produced for one chapter: each code cell's outputs, whether any cell failed, its wall time."""

    def __init__(self):
        self.started = time.perf_counter()
        self.outputs = {}
        self.failed = False
        self.language_info = None


_chapter_runs = {}


def _book_chapter(item):
    """The nbval notebook collector of `item` when it is a cell of this repository's book/, else None."""
    if IPyNbCell is None or not isinstance(item, IPyNbCell):
        return None
    root = item.config.rootpath
    notebook = item.parent
    if not (root / "_config.yml").is_file() or notebook.path.parent != root / "book":
        return None
    return notebook


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    notebook = _book_chapter(item)
    if notebook is not None and notebook.nodeid not in _chapter_runs:
        _chapter_runs[notebook.nodeid] = _ChapterRun()  # before the first cell's setup starts the kernel
    yield
    if notebook is not None and (nextitem is None or nextitem.parent is not notebook):
        _cache_executed_chapter(notebook, _chapter_runs.pop(notebook.nodeid))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    notebook = _book_chapter(item)
    if notebook is None:
        return
    run = _chapter_runs[notebook.nodeid]
    report = outcome.get_result()
    if not report.passed:
        run.failed = True  # a failed or skipped cell: the book build executes this chapter itself
    elif report.when == "call":
        run.outputs[item.cell_num] = item.test_outputs
        if run.language_info is None:
            # what nbclient records after executing a notebook (the book highlights code with its lexer)
            reply = notebook.kernel.kc.kernel_info(reply=True, timeout=60)
            run.language_info = reply["content"]["language_info"]


def _cache_executed_chapter(notebook, run):
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    executed = copy.deepcopy(notebook.nb)
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    if run.failed or sorted(run.outputs) != list(range(len(code_cells))):
        return
    for number, cell in enumerate(code_cells):
        cell.execution_count = number + 1
        cell.outputs = copy.deepcopy(run.outputs[number])
        for output in cell.outputs:
            if output.output_type == "execute_result":
                output.execution_count = number + 1
    executed.metadata["language_info"] = run.language_info
    nbformat.validate(executed)
    cache_dir = notebook.config.rootpath / "_build" / ".jupyter_cache"
    cache_dir.mkdir(parents=True, exist_ok=True)
    # pytest-xdist workers finish chapters at the same time: one writer at a time (jupyter-cache's sqlite index and
    # its notebook folders are not safe for concurrent writers)
    with open(cache_dir.parent / ".jupyter_cache.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        cache = get_cache(str(cache_dir))
        cache.cache_notebook_bundle(
            CacheBundleIn(executed, str(notebook.path), data={"execution_seconds": time.perf_counter() - run.started}),
            check_validity=True,
            overwrite=True,
        )
