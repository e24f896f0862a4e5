"""The bench's CPU hog: N busy processes in a group of their own, always stopped, bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.evaluate import DEFAULT_TASKS, EvalTask, load_tasks
from bench.hog import ROOT, Hog, default_procs, group_pids, main, usable_cores
from bench.suite import PARTS, parse_args
from bench.swarm_parts.busy import arm_record, sample_tasks


def wait_for(condition: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def test_the_hog_runs_n_busy_processes_and_stops_them_all() -> None:
    with Hog(procs=2, max_seconds=30) as hog:
        assert hog.pgid is not None and len(hog.workers) == 2
        pgid = hog.pgid
        assert group_pids(pgid) == sorted([pgid, *hog.workers])  # its own process group
        assert os.getpgid(0) != pgid
        assert wait_for(lambda: all(cpu_ticks(pid) > 0 for pid in hog.workers))  # spinning
    assert group_pids(pgid) == []
    assert default_procs() == 2 * usable_cores()


def test_the_hog_stops_on_an_error_in_the_block() -> None:
    with pytest.raises(RuntimeError, match="boom"), Hog(procs=1, max_seconds=30) as hog:
        pgid = hog.pgid
        raise RuntimeError("boom")
    assert pgid is not None and group_pids(pgid) == []


def test_the_hog_stops_itself_at_its_deadline() -> None:
    with Hog(procs=2, max_seconds=0.4) as hog:
        assert hog.pgid is not None
        pgid = hog.pgid
        assert group_pids(pgid)
        assert wait_for(lambda: group_pids(pgid) == [], timeout_s=2.0)


STARTER = """
import sys, time
from bench.hog import Hog
hog = Hog(procs=2, max_seconds=60)
hog.start()
print(hog.pgid, flush=True)
time.sleep(60)
"""


def test_the_hog_stops_when_the_benchmark_that_started_it_is_killed() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", STARTER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as bench:
        try:
            assert bench.stdout is not None
            pgid = int(bench.stdout.readline())
            assert len(group_pids(pgid)) == 3
            bench.send_signal(signal.SIGKILL)  # no __exit__, no handler: the hog notices alone
            bench.wait()
            assert wait_for(lambda: group_pids(pgid) == [], timeout_s=2.0)
        finally:
            bench.kill()


def test_the_command_line_checks_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--procs", "0"])
    assert "--procs must be at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_seconds"):
        Hog(procs=1, max_seconds=0)


def test_the_busy_part_samples_the_same_dev_tasks_every_time() -> None:
    tasks = [EvalTask(f"{i:02d}_t", "s", "t") for i in range(30)]
    picked = [t.name for t in sample_tasks(tasks, 6)]
    assert picked == ["00_t", "05_t", "10_t", "15_t", "20_t", "25_t"]
    assert sample_tasks(tasks[:4], 6) == tasks[:4]
    dev = load_tasks(DEFAULT_TASKS, split="dev")
    assert len(sample_tasks(dev, 6)) == 6 and sample_tasks(dev, 6)[0] == dev[0]


def test_the_busy_part_records_solved_counts_times_and_failed_calls() -> None:
    def run(solved: bool, seconds: float, calls: int, first: int, error: str | None = None) -> Any:
        outcome = "failed" if error else "approved"
        return {
            "solved": solved,
            "seconds": seconds,
            "calls": calls,
            "first_try_valid": first,
            "outcome": outcome,
            "error": error,
        }

    results = {
        "summary": {"swarm": {"median_s": 30.0, "wall_s": 95.0, "outcomes": {"approved": 2}}},
        "tasks": [
            {"task": "a", "swarm": run(True, 30.0, 6, 6)},
            {"task": "b", "swarm": run(False, 40.0, 7, 5)},
            {"task": "c", "swarm": run(False, 25.0, 2, 1, "NodeTimeoutError()")},
        ],
    }
    record = arm_record(results, 120.0)
    assert (record["solved"], record["runs"], record["wall_s"]) == (1, 3, 95.0)  # the arm's own
    assert record["solved_tasks"] == ["a"] and record["per_task_s"]["b"] == 40.0
    assert (record["calls"], record["calls_not_first_try"], record["failed_runs"]) == (15, 3, 1)
    assert record["errors"] == ["NodeTimeoutError()"]


def test_quick_runs_leave_the_busy_part_out_unless_it_is_named() -> None:
    assert "busy" in PARTS and "busy" not in parse_args(["--quick"]).parts
    assert parse_args([]).parts == list(PARTS)
    assert parse_args(["--quick", "--parts", "busy"]).parts == ["busy"]
