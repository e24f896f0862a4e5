"""app.report: what the CLI prints, a run's result, the runs table, the models and what a pull
did, each as text or as JSON (``--json``); progress and call lines on stderr; an evaluation's
summary."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.report import (
    print_call,
    print_eval,
    print_eval_progress,
    print_models,
    print_pull,
    print_run,
    print_runs,
)
from runtime.catalog import ModelEntry
from runtime.provision import LocalModel, PullResult

RUN: dict[str, Any] = {
    "run_id": "r1",
    "thread_id": "t1",
    "status": "done",
    "seconds": 12.5,
    "report": {
        "outcome": "approved",
        "reason": "every check passes",
        "summary": "add two numbers",
        "tests": {"passed": 3, "failed": 0},
        "revisions": 1,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "looked_up": ["map: pricing.py:round_cents", "sql: orders"],
        "uses": ["round_cents"],
        "project_notes": ["big.csv: 1.2 MB, over the 1 MB limit"],
        "findings": [{"auditor": "security", "severity": "low", "title": "uses eval"}],
        "files": {"solution.py": "def add(a, b):\n    return a + b\n\n"},
    },
}


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_a_run_is_printed_as_its_report(capsys: pytest.CaptureFixture[str]) -> None:
    print_run(RUN, as_json=False)
    assert lines(capsys.readouterr().out) == [
        "run r1 (thread t1): done, outcome approved in 12.5 s",
        "  reason: every check passes",
        "  task as understood: add two numbers",
        "  tests: 3 passed, 0 failed",
        "  revisions: 1; tokens: 100 prompt + 20 completion",
        "  project: 2 looked up; the code uses round_cents",
        "  project note: big.csv: 1.2 MB, over the 1 MB limit",
        "  finding: security [low] uses eval",
        "",
        "--- solution.py ---",
        "def add(a, b):",
        "    return a + b",
    ]


def test_a_failed_run_without_a_report_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    failed = {"run_id": "r2", "status": "failed", "seconds": 1, "error": "no endpoint"}
    print_run(failed, as_json=False)
    assert lines(capsys.readouterr().out) == [
        "run r2: failed, outcome - in 1 s",
        "  reason: no endpoint",
        "  revisions: 0; tokens: 0 prompt + 0 completion",
    ]
    looked = {**RUN, "report": {"looked_up": ["sql: orders"], "uses": []}}
    print_run(looked, as_json=False)
    assert "  project: 1 looked up; the code uses none of them" in lines(capsys.readouterr().out)


def test_json_prints_exactly_the_data(capsys: pytest.CaptureFixture[str]) -> None:
    print_run(RUN, as_json=True)
    assert json.loads(capsys.readouterr().out) == RUN
    rows = [{"thread_id": "t1", "status": "done"}]
    print_runs(rows, as_json=True)
    assert json.loads(capsys.readouterr().out) == rows
    print_runs([], as_json=True)
    assert json.loads(capsys.readouterr().out) == []


def test_the_runs_table_clips_long_tasks_and_shows_the_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_runs([], as_json=False)
    assert capsys.readouterr().out == "no runs yet\n"
    task = "Write a function that " + "adds many numbers " * 5
    rows: list[dict[str, Any]] = [
        {
            "thread_id": "t1",
            "started": "2025-01-02T03:04:05+00:00",
            "status": "done",
            "outcome": "approved",
            "last_node": "finish",
            "task": "add",
        },
        {
            "thread_id": "t2",
            "started": "2025-01-01T00:00:00+00:00",
            "status": "interrupted",
            "outcome": None,
            "last_node": None,
            "task": task,
        },
    ]
    print_runs(rows, as_json=False)
    header, first, second = lines(capsys.readouterr().out)
    assert header.split() == ["THREAD", "ID", "STARTED", "STATUS", "LAST", "NODE", "TASK"]
    assert first.split() == [
        "t1",
        "2025-01-02T03:04:05+00:00",
        "done",
        "(approved)",
        "finish",
        "add",
    ]
    assert second.split()[:4] == ["t2", "2025-01-01T00:00:00+00:00", "interrupted", "-"]
    assert second.endswith("  " + task[:57] + "...")
    # the columns line up under the header
    assert first.index("finish") == second.index("- ") == header.index("LAST NODE")


def test_a_pull_says_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    print_pull(PullResult("qwen", Path("/m/qwen"), True, 61.4, "Paris"))
    print_pull(PullResult("qwen", Path("/m/qwen"), False, 0.0, ""))
    assert lines(capsys.readouterr().out) == [
        "qwen: ready at /m/qwen (61 s); check answer: 'Paris'",
        "qwen: already present at /m/qwen",
    ]


def _model(name: str, ready: bool, size: int) -> LocalModel:
    entry = ModelEntry.model_construct(
        name=name, display_name=name.upper(), dtype="bfloat16", license="Apache-2.0"
    )
    return LocalModel(entry, Path("/m") / name, ready, size)


def test_models_show_their_state_and_size(capsys: pytest.CaptureFixture[str]) -> None:
    models = [
        _model("a", True, 1_234_567_890),
        _model("b", False, 5_000_000),
        _model("c", False, 0),
    ]
    print_models(models, as_json=False)
    table = [line.split() for line in lines(capsys.readouterr().out)]
    assert table == [
        ["NAME", "DTYPE", "STATUS", "SIZE", "LICENSE"],
        ["a", "bfloat16", "ready", "1235", "MB", "Apache-2.0"],
        ["b", "bfloat16", "incomplete", "5", "MB", "Apache-2.0"],
        ["c", "bfloat16", "not", "pulled", "-", "Apache-2.0"],
    ]
    print_models(models[:1], as_json=True)
    assert json.loads(capsys.readouterr().out) == [
        {
            "name": "a",
            "model": "A",
            "dtype": "bfloat16",
            "license": "Apache-2.0",
            "status": "ready",
            "size_bytes": 1_234_567_890,
            "path": "/m/a",
        }
    ]


def test_each_model_call_and_wait_is_a_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    call = {
        "event": "call",
        "node": "coder",
        "model": "m",
        "prompt_tokens": 120,
        "completion_tokens": 40,
        "seconds": 2.345,
        "swap_wait_s": 0.04,
    }
    print_call(call)
    print_call({**call, "attempts": 3, "ok": False})
    print_call({"event": "model", "node": "coder", "model": "m", "phase": "waiting"})
    print_call({"event": "model", "node": "coder", "model": "m", "phase": "ready", "seconds": 4})
    print_call({"event": "endpoint", "node": "setup", "phase": "waiting"})
    print_call({"event": "endpoint", "node": "setup", "phase": "ready", "seconds": 1.25})
    print_call({"event": "call_progress", "node": "coder", "tokens": 12})  # not a line
    captured = capsys.readouterr()
    assert captured.out == ""
    assert lines(captured.err) == [
        "[coder] m: 120+40 tokens, 2.3 s, swap wait 0.0 s",
        "[coder] m: 120+40 tokens, 2.3 s, swap wait 0.0 s, 3 attempts, no usable answer",
        "[coder] waiting for model m (loading or swapping in)",
        "[coder] model m ready after 4.0 s",
        "[setup] waiting for the endpoint (the embedded gateway starting)",
        "[setup] the endpoint ready after 1.2 s",
    ]


def test_an_eval_prints_a_line_per_task_and_its_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = SimpleNamespace(
        solved=True, hidden_passed=4, hidden_failed=0, outcome="approved", seconds=31.6
    )
    print_eval_progress("swarm", "add_two", done)
    assert capsys.readouterr().err == (
        "[swarm] add_two: solved (hidden tests 4 passed, 0 failed; approved, 32 s)\n"
    )
    swarm = {
        "solved": 2,
        "tasks": 3,
        "solved_share": 2 / 3,
        "first_try_valid_share": 0.9,
        "json_first_try_valid_share": 0.8,
        "calls": 10,
        "median_s": 12.0,
        "wall_s": 40,
        "dev": {"tasks": 2, "solved": 1},
        "held-out": {"tasks": 1, "solved": 1},
        "some_candidate_solved": 3,
        "long": {"solved": 1, "tasks": 1, "dev": "1/1", "held_out": "0/0", "median_s": 20.0},
        "kinds": {"sql": {"solved": 1, "tasks": 2, "dev": "1/1", "held_out": "0/1"}},
        "cut_calls": {"looping": 2},
        "cut_while_streaming": 1,
    }
    plain = {
        "solved": 1,
        "solved_share": 1 / 3,
        "first_try_valid_share": None,
        "calls": 3,
        "median_s": 4.5,
        "wall_s": 9,
        "dev": {"tasks": 2, "solved": 0},
        "held-out": {"tasks": 1, "solved": 1},
    }
    results = {
        "run_id": "e1",
        "seconds": 60,
        "summary": {
            "tasks": 3,
            "swarm": swarm,
            "plain": plain,
            "pairs": {"swarm/plain": {"only_swarm": ["sum_sql"], "only_plain": []}},
            "prefix_cache": {"coder": {"hit_rate": 0.5, "queried_tokens": 1000}, "auditor": {}},
            "gateway_swaps": {"swarm": {"load": 2, "sleep": 1.5}, "plain": {}},
        },
        "models": {"coder": "qwen", "auditor": "tiny"},
    }
    print_eval(results, as_json=False)
    assert lines(capsys.readouterr().out) == [
        "eval e1: 3 tasks in 60 s",
        "  swarm  solved 2/3 (67%; dev 1/2, held-out 1/1; some candidate right on 3), "
        "schema-valid on the first try 90% of 10 calls (guided JSON 80%), "
        "median 12.0 s a task, 40 s in all",
        "         long statements: solved 1/1 (dev 1/1, held-out 0/0), median 20.0 s",
        "         by kind: sql 1/2 (dev 1/1, held-out 0/1)",
        "         calls cut: looping 2; cut while streaming and lost: 1",
        "  plain  solved 1/3 (33%; dev 0/2, held-out 1/1), schema-valid on the first try - "
        "of 3 calls, median 4.5 s a task, 9 s in all",
        "  swarm/plain: only_swarm sum_sql; only_plain -",
        "  vLLM prefix-cache hits: coder 50% of 1000 tokens",
        "  gateway swap steps: swarm load 2, sleep 1.5",
        "  models: coder qwen, auditor tiny",
    ]
    print_eval(results, as_json=True)
    assert json.loads(capsys.readouterr().out) == results
