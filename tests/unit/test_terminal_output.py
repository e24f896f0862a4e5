"""What ``edgeswarm run`` prints: a quiet terminal, JSON lines off one, every event in a file.

The runs here are real subprocesses against the fake model server: on a pseudo-terminal
(``isatty()`` true, as for a user) and through pipes (as in CI). The progress printer alone
(app.runner.ProgressPrinter: what each stream event and node update prints) is tested in
test_runner.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.fakes import FakeOpenAI
from tests.support import ROOT
from tests.support.cli import edgeswarm, run_on_a_terminal
from tests.support.scripts import GOOD_CODE, audits, brief, code, suite, summary

BARE = re.compile(r"^\[\w+\]\s*$")
"""A progress line that says nothing, such as a bare ``[coder]``."""
CALL = re.compile(r"^\[\w+\] fake-model: \d+\+\d+ tokens, \d+\.\d s")


def script_trivial_run(fake: FakeOpenAI) -> None:
    """A run approved in its first round, every one of the 4 candidates passing."""
    fake.script(brief(), summary(), *[code(GOOD_CODE)] * 4, suite(), *audits())


def chat_calls(fake: FakeOpenAI) -> int:
    return sum(1 for body in fake.requests() if "messages" in body)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The subprocess's environment: this test's state directory, the repository importable."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("EDGESWARM_")},
        "EDGESWARM_STATE_DIR": str(tmp_path / "state"),
        "EDGESWARM_MODELS_DIR": str(tmp_path / "models"),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        "TERM": "xterm",
    }


def run_args(fake: FakeOpenAI, out: Path, *flags: str) -> list[str]:
    return edgeswarm(
        *flags,
        "run",
        "--out",
        str(out),
        "--base-url",
        fake.base_url,
        "--model",
        "fake-model",
        "add",
    )


def progress_part(lines: list[str]) -> list[str]:
    """The lines before the result's summary (``run ID (thread ...): done, ...``)."""
    end = next((i for i, line in enumerate(lines) if line.startswith("run ")), len(lines))
    return lines[:end]


def test_a_trivial_run_on_a_terminal_prints_a_line_per_call_and_decision(
    fake_openai: FakeOpenAI, env: dict[str, str], tmp_path: Path
) -> None:
    script_trivial_run(fake_openai)
    out = tmp_path / "out"
    run = run_on_a_terminal(run_args(fake_openai, out), env=env, cwd=tmp_path)
    assert run.returncode == 0, run.text[-3000:]
    lines = progress_part(run.lines)
    calls = chat_calls(fake_openai)
    assert [line for line in lines if BARE.match(line)] == []  # no bare `[coder]`
    assert not any(line.lstrip().startswith("{") for line in lines)  # no JSON on a terminal
    assert not [line for line in lines if "node_done" in line or "info" in line]  # no info logs
    assert "\x1b[" not in run.text  # no colour codes either
    assert len([line for line in lines if CALL.match(line)]) == calls == 8
    assert [line for line in lines if line.startswith("[coder] 4 candidates")] == [
        "[coder] 4 candidates, 4 pass the 2 checks"
    ]
    assert lines.count("[auditors] approved") == 1
    # a loaded machine may make a node wait over a second for its model: a line each
    waits = [line for line in lines if re.match(r"^\[\w+\] waiting for ", line)]
    # the thread, where the log is, a line per call, two decisions, what was written
    assert len(lines) == 2 + calls + 2 + 1 + len(waits), "\n".join(lines)
    assert lines[1] == f"edgeswarm: log {out / 'run.log.jsonl'}"
    assert "outcome approved" in run.text  # the result itself, as before


def test_the_run_log_file_keeps_every_event_as_json(
    fake_openai: FakeOpenAI, env: dict[str, str], tmp_path: Path
) -> None:
    """What the terminal hides (info, debug) is in ``<out>/run.log.jsonl``, one JSON per line."""
    script_trivial_run(fake_openai)
    out = tmp_path / "out"
    run = run_on_a_terminal(run_args(fake_openai, out), env=env, cwd=tmp_path)
    assert run.returncode == 0, run.text[-3000:]
    events = [json.loads(line) for line in (out / "run.log.jsonl").read_text().splitlines()]
    names = [e["event"] for e in events]
    assert names.count("node_done") == chat_calls(fake_openai)  # info events
    assert {"debug", "info"} <= {e["level"] for e in events}
    progress = [e["line"] for e in events if e["event"] == "progress"]
    assert "[auditors] approved" in progress  # the terminal's lines, too
    run_ids = {e.get("run_id") for e in events if e["event"] == "node_done"}
    assert len(run_ids) == 1 and None not in run_ids


def test_a_pipe_gets_json_lines_and_the_progress_lines_on_stderr(
    fake_openai: FakeOpenAI, env: dict[str, str], tmp_path: Path
) -> None:
    script_trivial_run(fake_openai)
    out = tmp_path / "out"
    done = subprocess.run(
        [*run_args(fake_openai, out), "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["report"]["outcome"] == "approved"  # stdout: the result only
    lines = done.stderr.splitlines()
    logs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e for e in logs if e["event"] == "node_done"] and all(e["run_id"] for e in logs)
    assert "[auditors] approved" in lines and not [line for line in lines if BARE.match(line)]
    others = [line for line in lines if not line.startswith(("{", "[", "edgeswarm: "))]
    assert others == []
    assert (out / "run.log.jsonl").exists()


def test_log_format_json_sends_json_lines_to_a_terminal(
    fake_openai: FakeOpenAI, env: dict[str, str], tmp_path: Path
) -> None:
    script_trivial_run(fake_openai)
    run = run_on_a_terminal(
        run_args(fake_openai, tmp_path / "out", "--log-format", "json"), env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.text[-3000:]
    logs = [json.loads(line) for line in run.lines if line.startswith("{")]
    assert {"node_done", "sandbox.run"} <= {e["event"] for e in logs}
    assert all(e["level"] in ("info", "warning", "error") for e in logs)
