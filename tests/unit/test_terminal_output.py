"""What ``edgeswarm run`` prints: a quiet terminal, JSON lines off one, every event in a file.

The runs here are real subprocesses against the fake model server: on a pseudo-terminal
(``isatty()`` true, as for a user) and through pipes (as in CI).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.runner import ProgressPrinter
from graphs.state import Candidate
from tests.fakes import FakeOpenAI
from tests.support import ROOT
from tests.support.cli import edgeswarm, run_on_a_terminal
from tests.support.scripts import GOOD_CODE, audits, brief, code, suite, summary
from tools.check_runner import Verdict

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


# The printer alone: what each stream event and node update prints.


def printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.splitlines()


def test_unknown_and_liveness_events_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    printer = ProgressPrinter()
    printer.call({"event": "call_progress", "node": "coder", "tokens": 12, "seconds": 3.0})
    printer.call({"event": "something_new", "node": "coder"})
    printer.call({"node": "coder"})
    printer.call("not a mapping")
    printer.call({"event": "model", "node": "coder", "model": "m", "phase": "ready", "seconds": 2})
    for node in ("setup", "researcher", "summarize_brief", "coder", "test_writer", "finish"):
        printer.node(node, {})
    printer.node("security_auditor", {"audits": {}})
    assert printed(capsys) == []


def test_call_and_wait_lines(capsys: pytest.CaptureFixture[str]) -> None:
    printer = ProgressPrinter()
    call: dict[str, Any] = {
        "event": "call",
        "node": "coder",
        "model": "m",
        "prompt_tokens": 120,
        "completion_tokens": 40,
        "seconds": 2.345,
        "swap_wait_s": 0.0,
    }
    printer.call(call)
    printer.call({**call, "swap_wait_s": 3.2, "attempts": 2, "ok": False})
    printer.call({"event": "model", "node": "coder", "model": "m", "phase": "waiting"})
    printer.call({"event": "endpoint", "node": "researcher", "phase": "waiting"})
    assert printed(capsys) == [
        "[coder] m: 120+40 tokens, 2.3 s",
        "[coder] m: 120+40 tokens, 2.3 s, swap wait 3.2 s, 2 attempts, no usable answer",
        "[coder] waiting for model m (loading or swapping in)",
        "[researcher] waiting for the endpoint (the embedded gateway starting)",
    ]


def candidate(revision: int, *oks: bool, gate: str = "", id: str = "") -> Candidate:
    verdicts = [Verdict(ok=ok) for ok in oks]
    return Candidate(
        code="", revision=revision, greedy=False, seed=0, gate=gate, verdicts=verdicts, id=id
    )


def test_decision_lines(capsys: pytest.CaptureFixture[str]) -> None:
    printer = ProgressPrinter()
    first = [
        candidate(0, True, False, id="c0"),
        candidate(0, True, True, id="c1"),
        candidate(0, gate="SyntaxError", id="c2"),
    ]
    printer.node(
        "run_tests", {"scored": first, "checks": [1, 2], "best": "c1", "decision": "revise"}
    )
    second = [*first, candidate(1, True, False, id="c3"), candidate(1, False, False, id="c4")]
    printer.node("run_tests", {"scored": second, "checks": [1, 2], "best": "c3", "decision": "x"})
    printer.node("security_auditor", {"audits": {"security": audit_report("approve", 0)}})
    printer.node("performance_auditor", {"audits": {"performance": audit_report("revise", 2)}})
    printer.node("decide", {"decision": "revise"})
    printer.node("security_auditor", {"audits": {"security": audit_report("approve", 0)}})
    printer.node("performance_auditor", {"audits": {"performance": audit_report("approve", 0)}})
    printer.node("decide", {"decision": "finish"})
    printer.node("coder", {"status": "failed", "error": "coder: the model timed out\nafter 60 s"})
    assert printed(capsys) == [
        "[coder] 3 candidates, 1 passes the 2 checks; revising",
        "[coder] 2 candidates, none passes all 2 checks (the best passes 1)",
        "[auditors] performance asks for changes (2 findings), security approves; "
        "revising for the tools' blocking evidence",
        "[auditors] approved",
        "[coder] failed: the model timed out after 60 s",
    ]


def audit_report(verdict: str, findings: int) -> Any:
    from agents.schemas import AuditReport, Finding

    finding = Finding.model_construct(title="t", detail="d", severity="low")
    return AuditReport.model_construct(verdict=verdict, findings=[finding] * findings)
