"""bench.writer_checks: the test writer's checks, as written and as kept, against a reference."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from app.evaluate import load_tasks
from bench.writer_checks import main, measure
from tests.fakes import FakeOpenAI
from tests.support.scripts import suite


def task_set(root: Path) -> Path:
    folder = root / "01_ticket"
    folder.mkdir(parents=True)
    (folder / "task.txt").write_text("Write `ticket(n)` that returns its id, such as T-007.\n")
    (folder / "test_hidden.py").write_text("from solution import ticket\n")
    (folder / "reference.py").write_text("def ticket(n):\n    return f'T-{n:03d}'\n")
    return root


def test_the_checks_as_written_and_as_kept_are_run_against_the_reference(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    checks = [
        {"call": "ticket(007)", "expected": "T-007"},  # padded, unquoted: mended
        {"call": "ticket(12)", "expected": "'T-012'"},  # holds as written
        {"call": "ticket(5)", "expected": "'T-5'"},  # the writer's slip: holds in neither
    ]
    fake_openai.script(suite(checks))
    root = task_set(tmp_path / "tasks")
    with httpx.Client(base_url=fake_openai.base_url) as client:
        result = measure(client, "m", root, load_tasks(root))
    assert result["total"] == {
        "written": 2,
        "written_hold": 1,
        "kept": 3,
        "kept_hold": 2,
        "tasks": 1,
        "tasks_written_hold": 1,
        "tasks_kept_hold": 1,
    }
    assert result["rows"][0]["added"] == [{"check": "ticket(7) == 'T-007'", "holds": True}]
    body = fake_openai.requests()[0]
    assert body["temperature"] == 0 and body["response_format"]["json_schema"]["name"] == (
        "TestSuite"
    )
    fake_openai.script(suite(checks))
    out = tmp_path / "out.json"
    argv = ["--tasks", str(root), "--split", "all", "--base-url", fake_openai.base_url]
    assert main([*argv, "--out", str(out)]) == 0
    assert json.loads(out.read_text())["total"]["kept_hold"] == 2
