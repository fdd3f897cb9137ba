"""Grade a folder of submitted student notebooks into one CSV of verdicts per student and exercise.

Usage::

    python tools/grade_notebooks.py SUBMISSIONS/ --out grades.csv [--timeout 600] [--chapter 7] [--executed DIR]

Every ``*.ipynb`` under ``SUBMISSIONS`` (searched recursively; the student is the file's path relative to the
folder, without ``.ipynb``) is executed top to bottom with nbclient in a fresh kernel, in an empty temporary
directory, with a time limit for the whole notebook (``--timeout`` seconds). A cell that raises does not stop
the run (later exercises are still graded); a notebook that runs past its limit, whose kernel dies or that is
not a notebook at all is reported in the ``status`` column, and the next notebook is graded as usual.

The verdicts are those of the notebook's own ``check("7.k", answer_7_k)`` calls: the grader sets
``TABULAR_TREES_CHECK_LOG`` to a fresh file, to which ``tabular_trees.exercises.check`` appends one JSON line
per call (exercise, verdict, number of different answers tried, hint). For each exercise the CSV holds the
verdict of the last call (``right``, ``close``, ``wrong``, ``unanswered``, or ``not run`` when no call was
reached) and the number of different answers that session tried. With ``--executed DIR`` each executed
notebook is also saved there, with its outputs, to read the code behind a verdict.

Offline: the kernel's proxy variables point at an address that refuses connections, so a notebook that tries
to download something fails there instead of reaching the network. This is no sandbox: a submitted notebook
runs with your user's rights, so grade inside a container or a throw-away account.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

STATUSES = ("ok", "error", "timeout", "died", "unreadable")
DEAD_PROXY = "http://127.0.0.1:9"     # the discard port: connections are refused at once


def _offline_env(log_path):
    env = dict(os.environ)
    env.update({"TABULAR_TREES_CHECK_LOG": str(log_path), "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY,
                "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY, "PIP_NO_INDEX": "1",
                "MPLBACKEND": "Agg"})
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    return env


def _first_error(nb):
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return f"cell {index}: {output.get('ename')}: {str(output.get('evalue'))[:200]}"
    return ""


def run_notebook(path, *, timeout, kernel_name="python3", save_to=None):
    """Execute one notebook; return ``(status, detail, seconds, log records)``. Never raises.

    ``save_to`` (a path) receives the executed notebook with its outputs, whatever the status.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        log_path = Path(workdir) / "checks.jsonl"
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as exc:  # noqa: BLE001 - anything that is not a readable notebook is reported
            return "unreadable", f"{type(exc).__name__}: {str(exc)[:200]}", 0.0, []
        deadline = start + timeout

        def remaining(cell):
            return max(1, int(deadline - time.perf_counter()))

        client = NotebookClient(nb, timeout=timeout, timeout_func=remaining, kernel_name=kernel_name,
                                allow_errors=True, resources={"metadata": {"path": workdir}})
        try:
            client.execute(env=_offline_env(log_path))      # the kernel's environment, not this process's
            error = _first_error(nb)
            status, detail = ("error", error) if error else ("ok", "")
        except CellTimeoutError:
            status, detail = "timeout", f"stopped after the time limit of {timeout} s"
        except DeadKernelError as exc:
            status, detail = "died", f"the kernel died: {str(exc)[:200]}"
        except Exception as exc:  # noqa: BLE001 - a broken notebook must never stop the batch
            status, detail = "error", f"{type(exc).__name__}: {str(exc)[:200]}"
        if save_to is not None:
            try:
                Path(save_to).parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, save_to)
            except Exception as exc:  # noqa: BLE001 - saving a copy must not lose the verdicts
                detail = f"{detail} (not saved: {type(exc).__name__})".strip()
        records = []
        if log_path.exists():
            for line in log_path.read_text(encoding="utf-8").splitlines():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return status, detail, time.perf_counter() - start, records


def _sort_key(exercise_id):
    chapter, number = exercise_id.split(".")
    return int(chapter), int(number)


def grade_folder(folder, out, *, timeout=600, chapter=None, kernel_name="python3", executed=None, echo=print):
    """Grade every notebook under ``folder`` and write the CSV ``out``; return its rows (dicts).

    ``executed`` (a folder) receives each executed notebook under its path relative to ``folder``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder must be a directory of submitted notebooks, got {str(folder)!r}.")
    paths = sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    results = []
    for path in paths:
        student = str(path.relative_to(folder).with_suffix(""))
        save_to = None if executed is None else Path(executed) / path.relative_to(folder)
        status, detail, seconds, records = run_notebook(path, timeout=timeout, kernel_name=kernel_name,
                                                        save_to=save_to)
        verdicts = {}
        for record in records:
            verdicts[record["exercise"]] = (record["verdict"], record.get("attempts", 0))
        results.append((student, status, detail, seconds, verdicts))
        echo(f"{student}: {status} in {seconds:.0f} s, {sum(v == 'right' for v, _ in verdicts.values())} right")
    ids = set()
    for *_, verdicts in results:
        ids |= set(verdicts)
    if chapter is not None:
        from tabular_trees.exercises import exercise_ids

        ids = set(exercise_ids(chapter=chapter)) | {i for i in ids if _sort_key(i)[0] == chapter}
    ids = sorted(ids, key=_sort_key)
    rows = []
    for student, status, detail, seconds, verdicts in results:
        row = {"student": student, "status": status, "seconds": f"{seconds:.1f}", "detail": detail,
               "right": sum(verdicts.get(i, ("",))[0] == "right" for i in ids)}
        for exercise_id in ids:
            verdict, tried = verdicts.get(exercise_id, ("not run", 0))
            row[exercise_id] = verdict
            row[f"{exercise_id} attempts"] = tried
        rows.append(row)
    fields = ["student", "status", "seconds", "detail", "right"]
    for exercise_id in ids:
        fields += [exercise_id, f"{exercise_id} attempts"]
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="a folder of submitted notebooks (searched recursively)")
    parser.add_argument("--out", default="grades.csv", help="the CSV to write (default: grades.csv)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per notebook (default: 600)")
    parser.add_argument("--chapter", type=int, default=None,
                        help="list every checkable exercise of this chapter, run or not")
    parser.add_argument("--kernel", default="python3", help="the Jupyter kernel to run (default: python3)")
    parser.add_argument("--executed", default=None, help="a folder to save the executed notebooks in")
    args = parser.parse_args(argv)
    if args.timeout < 1:
        parser.error("--timeout must be at least 1 second")
    try:
        rows = grade_folder(args.folder, args.out, timeout=args.timeout, chapter=args.chapter,
                            kernel_name=args.kernel, executed=args.executed)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"graded {len(rows)} notebook(s) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
