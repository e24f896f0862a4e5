"""Does the project map find a real repository's helper for a task that needs it?

``python -m bench.retrieval [--root DIR] [--out FILE]`` asks, for each case, where the helper
a task needs ranks among a repository's snippets, and whether it is among the snippets a
candidate's prompt shows (:func:`tools.project_rank.project_context`, the default budget).
The cases are tasks on this repository, each asking for new code that should call one of its
helpers, written as a user asks: the helper is described, never named. Beside the map's
ranking, the same snippets ranked by BM25 alone (no bonuses, no references pulled in): the
plain retrieval a user would reach for first.

No model runs: this measures what the researcher's map hands every candidate, the part of a
run on ``edgeswarm run --workspace .`` that the model cannot make up for.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tools.project_map import ProjectMap, build_map
from tools.project_rank import _bm25, _Query, project_context, rank

ROOT = Path(__file__).resolve().parents[1]
SELF = "bench/retrieval.py"
"""This file, left out of the map it measures."""
TOP = 5
"""A helper within this many ranks counts as found in the summary's ``top`` count."""


@dataclass(frozen=True)
class Case:
    """A task, and the ``path:name`` of the helper its answer should call."""

    task: str
    helper: str


CASES: tuple[Case, ...] = (
    Case(
        "Write function_names(source) that returns the names of the top-level functions "
        "(def and async def) in a Python source string, in order. Parse it with the "
        "project's own Python-source parser from tools/, as the rest of the code does.",
        "tools/pysource.py:parse",
    ),
    Case(
        "Write failed_tests(result) that returns how many tests failed in a sandboxed run's "
        "result, with the project's own way of counting a run's passed and failed tests.",
        "tools/sandbox.py:test_counts",
    ),
    Case(
        "Write still_running(pid, start) that tells whether a process the project started is "
        "still that same live process, with the project's liveness check (a reused pid is "
        "not alive).",
        "runtime/process.py:process_alive",
    ),
    Case(
        "Write table_names(db_path) that returns the names of the tables of a SQLite file, "
        "using the project's read-only schema listing.",
        "tools/sql.py:list_schema",
    ),
    Case(
        "Write asked_name(statement) that returns the name of the function or class a task "
        "statement asks for, read the way the project reads a statement.",
        "agents/examples.py:entry_point_of",
    ),
    Case(
        "Write shared_words(a, b) that returns the words two identifiers have in common, "
        "split and stemmed the way the project map splits text into words for ranking.",
        "tools/project_map.py:tokens",
    ),
    Case(
        "Write log_done(task) that logs a structured 'done' event with the task, through the "
        "project's logger for a component.",
        "runtime/logs.py:get_logger",
    ),
    Case(
        "Write can_run(code, name) that returns True when a candidate's code parses and "
        "defines the asked function, with the project's first check of a candidate, before "
        "any test of it runs.",
        "tools/check_runner.py:gate",
    ),
    Case(
        "Write usable(call, expected) that says whether a check the test writer wrote can "
        "pass at all, by the project's own rule for the writer's checks.",
        "agents/test_writer.py:well_formed",
    ),
    Case(
        "Write free_gpu_gib() that returns the free memory of the first GPU in GiB, from the "
        "project's NVML memory probe.",
        "runtime/nvml.py:device_memory",
    ),
    Case(
        "Write pick_port() that returns a TCP port on localhost that nothing listens on, for "
        "a test server, the way the project picks one.",
        "runtime/process.py:free_port",
    ),
    Case(
        "Write model_names() that returns the names of the models in the project's model "
        "catalogue, loaded the way the project loads it.",
        "runtime/catalog.py:load_catalog",
    ),
    Case(
        "Write fix_imports(code) that adds the imports a candidate's code forgot, with the "
        "project's own repair for missing imports.",
        "agents/repair.py:add_missing_imports",
    ),
)


@dataclass(frozen=True)
class Result:
    """Where one case's helper stood."""

    helper: str
    rank: int | None
    """Its place in the map's ranking (1 is first); None when it scored nothing."""
    bm25_rank: int | None
    """Its place by BM25 alone."""
    shown: bool
    """Whether it is among the snippets a candidate's prompt shows."""
    shown_before: list[str]
    """The snippets shown before it (all of them when it is not shown)."""


def place(project: ProjectMap, case: Case, root: Path) -> Result:
    """Rank ``case``'s task against ``project`` (the map of ``root``) both ways."""
    ranked = [f"{entry.path}:{entry.name}" for _, entry in rank(project, case.task)]
    base = _bm25(project.entries, _Query.of(case.task).tokens)
    by_bm25 = [
        f"{project.entries[i].path}:{project.entries[i].name}"
        for i in sorted(range(len(base)), key=lambda i: (-base[i], i))
        if base[i] > 0
    ]
    used = list(project_context(root, case.task, project=project).used)
    shown = case.helper in used
    return Result(
        helper=case.helper,
        rank=ranked.index(case.helper) + 1 if case.helper in ranked else None,
        bm25_rank=by_bm25.index(case.helper) + 1 if case.helper in by_bm25 else None,
        shown=shown,
        shown_before=used[: used.index(case.helper)] if shown else used,
    )


def measure(root: Path, cases: Sequence[Case]) -> tuple[dict[str, object], list[Result]]:
    """The summary (shown, in the top ranks, both rankings) and every case's result."""
    start = time.monotonic()
    whole = build_map(root)
    map_s = time.monotonic() - start
    # This file holds the tasks verbatim: mapped, it would be every task's best match.
    project = replace(
        whole,
        entries=tuple(e for e in whole.entries if e.path != SELF),
        files=tuple(f for f in whole.files if f != SELF),
    )
    results = [place(project, case, root) for case in cases]

    def top(ranks: list[int | None]) -> int:
        return sum(1 for r in ranks if r is not None and r <= TOP)

    summary: dict[str, object] = {
        "root": str(root),
        "files": len(project.files),
        "entries": len(project.entries),
        "map_s": round(map_s, 2),
        "cases": len(results),
        "shown": sum(r.shown for r in results),
        f"top{TOP}": top([r.rank for r in results]),
        f"bm25_top{TOP}": top([r.bm25_rank for r in results]),
    }
    return summary, results


def main(argv: Sequence[str] | None = None) -> int:
    """Measure :data:`CASES` on ``--root``; print a line a case and the summary."""
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__)
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (this one)")
    parser.add_argument("--out", type=Path, help="also write the results here as JSON")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        parser.error(f"--root {args.root} is not a directory")
    summary, results = measure(args.root, CASES)
    for r in results:
        mark = "shown" if r.shown else "-"
        print(f"{r.helper:40} rank {r.rank!s:>4}  bm25 {r.bm25_rank!s:>4}  {mark}")
    print(
        f"{summary['cases']} cases on {summary['files']} files ({summary['map_s']} s to map): "
        f"shown {summary['shown']}, top {TOP} {summary[f'top{TOP}']} "
        f"(BM25 alone: {summary[f'bm25_top{TOP}']})"
    )
    if args.out:
        data = {**summary, "results": [asdict(r) for r in results]}
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
