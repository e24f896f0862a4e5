"""bench.replay: recorded candidates ranked again by the selection rules as they stand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.replay import main, parse_check, replay_file, workspace_names
from tools.check_runner import Check


def attempt(passed: list[bool], right: bool, **kw: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "revision": 0,
        "greedy": False,
        "prompt": "plain",
        "chosen": False,
        "gate": "",
        "checks_passed": passed,
        "code": "def f(x):\n    return x\n",
        "observed": [],
        "peers": [],
        "hidden_solved": right,
    }
    return {**row, **kw}


def record(tmp_path: Path, *tasks: dict[str, Any]) -> Path:
    path = tmp_path / "x-eval.json"
    path.write_text(json.dumps({"tasks_dir": "nowhere", "tasks": list(tasks)}))
    return path


def test_a_recorded_line_reads_back_as_the_check_it_was() -> None:
    assert parse_check("PASS [writer] f(1) == 2") == Check("f(1)", "2", "writer")
    assert parse_check("FAIL [statement] f(-1) raises ValueError") == Check(
        "f(-1)", "", "statement", raises="ValueError"
    )
    assert parse_check("FAIL [someone] f(1) == 2") is None
    assert parse_check("f(1) == 2") is None


def test_a_choice_the_rules_now_make_otherwise_is_counted_with_its_grade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the greedy candidate was chosen as recorded; the rules as they stand choose the one that
    # passes the statement's example (and, as graded, the tests)
    changed = {
        "task": "01_f",
        "split": "dev",
        "swarm": {
            "checks": ["FAIL [statement] f(1) == 1"],
            "attempts": [
                attempt([False], False, greedy=True, chosen=True),
                attempt([True], True),
                attempt([], False, gate="syntax error: x (line 1)"),
            ],
        },
    }
    same = {
        "task": "02_g",
        "split": "held-out",
        "swarm": {
            "checks": ["PASS [writer] g(1) == 1"],
            "attempts": [attempt([True], True, greedy=True, chosen=True)],
        },
    }
    unreadable = {"task": "03_h", "swarm": {"checks": ["?"], "attempts": [attempt([True], True)]}}
    path = record(tmp_path, changed, same, unreadable, {"task": "04_plain_only"})
    result = replay_file(path)
    assert (result.choices, result.same, result.skipped) == (2, 1, 1)
    assert (result.recorded_right, result.replayed_right) == (1, 2)
    assert result.changed == [{"task": "01_f", "split": "dev", "recorded": False, "now": True}]
    other = tmp_path / "plot.json"
    other.write_text(json.dumps({"rows": []}))
    assert main([str(path), str(other), "--out", str(tmp_path / "out.json")]) == 0
    printed = capsys.readouterr().out
    assert "+ 01_f (dev): False -> True" in printed
    total = json.loads((tmp_path / "out.json").read_text())["total"]
    assert total == {
        "choices": 2,
        "recorded_right": 1,
        "replayed_right": 2,
        "changed": 1,
        "gained": 1,
        "lost": 0,
    }


def test_the_workspace_names_are_what_project_calls_counts(tmp_path: Path) -> None:
    ws = tmp_path / "t" / "workspace" / "shop"
    ws.mkdir(parents=True)
    (ws / "money.py").write_text("def round_cents(x):\n    return x\n\n\nclass Till:\n    pass\n")
    (ws / "broken.py").write_text("def (:\n")
    assert workspace_names(tmp_path / "t") == {"round_cents": "money", "Till": "money"}
    assert workspace_names(tmp_path / "none") == {}
