"""app.runner: the run's input checked before anything starts (task, workspace, database, the
model the endpoint serves), where its log goes, the progress printer's lines for each stream
event and node update, and what a run writes under ``--out`` (its files, report.json,
report.md).

What ``edgeswarm run`` prints on a terminal and through pipes, as a subprocess, is tested in
test_terminal_output.py.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.errors import UsageError
from app.runner import (
    RUN_LOG,
    InputError,
    ProgressPrinter,
    check_inputs,
    check_served,
    read_task,
    report_markdown,
    run_log_path,
    write_outputs,
)
from graphs.state import Candidate, InputState
from tests.fakes import FakeOpenAI
from tools.check_runner import Verdict
from tools.sample_db import create_sample_db


def test_a_task_on_stdin_that_is_utf8_is_read_as_bytes() -> None:
    from app.runner import read_task

    stdin = io.TextIOWrapper(io.BytesIO("Écris add(a, b)\n".encode()), encoding="ascii")
    assert read_task("-", stdin) == "Écris add(a, b)\n"  # UTF-8 whatever the locale says
    assert read_task("a task", stdin) == "a task"


def test_a_task_on_stdin_that_is_not_utf8_is_refused_naming_the_byte() -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"add \xff numbers"), encoding="utf-8")
    with pytest.raises(InputError, match=r"^the task on stdin is not UTF-8 text \(byte 0xff at "):
        read_task("-", stdin)
    with pytest.raises(InputError, match="at offset 4 of 13"):
        read_task("-", io.TextIOWrapper(io.BytesIO(b"add \xff numbers")))
    assert read_task("-", io.StringIO("a text stream")) == "a text stream"  # no bytes under it


def test_the_inputs_are_checked_before_the_run_starts(tmp_path: Path) -> None:
    db = create_sample_db(tmp_path / "shop.db")
    assert check_inputs("  add two numbers \n", str(tmp_path), str(db)) == InputState(
        task="add two numbers", workspace=str(tmp_path), database=str(db)
    )
    assert check_inputs("add", None, None) == InputState(task="add")
    assert issubclass(InputError, UsageError)  # exit 2: bad input
    with pytest.raises(InputError, match="^the task is empty$"):
        check_inputs(" \n", None, None)
    with pytest.raises(InputError, match=r"^the task is not UTF-8 text \(an undecodable byte at"):
        check_inputs("add \udcff numbers", None, None)


def test_a_workspace_must_be_a_directory(tmp_path: Path) -> None:
    for path in (tmp_path / "missing", tmp_path / "file.txt"):
        if path.name == "file.txt":
            path.write_text("x")
        with pytest.raises(InputError, match=f"^workspace {path} is not a readable directory$"):
            check_inputs("add", str(path), None)


def test_a_database_must_be_a_readable_sqlite_file(tmp_path: Path) -> None:
    cases = {tmp_path: f"database {tmp_path} is a directory, not a SQLite file"}
    missing = tmp_path / "none.db"
    cases[missing] = f"database {missing} does not exist"
    pipe = tmp_path / "pipe.db"
    os.mkfifo(pipe)
    cases[pipe] = f"database {pipe} is not a regular file (a SQLite file is needed)"
    text = tmp_path / "notes.db"
    text.write_text("not a database at all, just text " * 20)
    cases[text] = f"database {text} cannot be read as SQLite ("
    for path, message in cases.items():
        with pytest.raises(InputError) as raised:
            check_inputs("add", None, str(path))
        assert str(raised.value).startswith(message), str(raised.value)


def test_a_model_the_endpoint_does_not_serve_is_refused(fake_openai: FakeOpenAI) -> None:
    check_served(fake_openai.base_url, fake_openai.model)
    with pytest.raises(InputError, match=r"^unknown model 'other': .* serves 'fake-model'"):
        check_served(fake_openai.base_url + "/", "other")


def test_a_runs_log_goes_to_its_out_folder_or_under_the_log_folder(tmp_path: Path) -> None:
    assert run_log_path(tmp_path / "out", tmp_path / "logs", "t1") == tmp_path / "out" / RUN_LOG
    assert (
        run_log_path(None, tmp_path / "logs", "t1") == tmp_path / "logs" / "runs" / "t1.log.jsonl"
    )
    assert run_log_path("", tmp_path / "logs", "t2") == tmp_path / "logs" / "runs" / "t2.log.jsonl"


def test_a_progress_line_is_one_short_line(capsys: pytest.CaptureFixture[str]) -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream)
    printer.node("coder", {"status": "failed", "error": "coder: the model\n timed   out"})
    printer.node("researcher", {"status": "failed", "error": "x" * 300})
    printer.node("coder", {"error": "not failed: the run goes on"})
    first, second = stream.getvalue().splitlines()
    assert first == "[coder] failed: the model timed out"
    assert len(second) == 200 and second.endswith("x...")
    assert capsys.readouterr().err == ""  # the stream it was given, not stderr


RESULT: dict[str, Any] = {
    "run_id": "r1",
    "status": "done",
    "seconds": 9.5,
    "task": "Write add(a, b).",
    "report": {
        "outcome": "approved",
        "reason": "every check passes",
        "revisions": 0,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "tests": {"passed": 2, "failed": 0},
        "looked_up": ["map: pricing.py:round_cents", "sql: orders"],
        "uses": ["pricing.py:round_cents"],
        "project_notes": ["big.csv: skipped"],
        "findings": [{"auditor": "security", "severity": "low", "title": "t", "detail": "d"}],
        "files": {"../../escape/solution.py": "def add(a, b):\n    return a + b\n"},
    },
    "metrics": [
        {
            "node": "coder",
            "model": "m",
            "prompt_tokens": 7,
            "completion_tokens": 3,
            "seconds": 1.5,
            "swap_wait_s": 0.0,
            "cut": "looping",
            "kept": True,
        },
        {
            "node": "coder",
            "model": "m",
            "prompt_tokens": 3,
            "completion_tokens": 2,
            "seconds": 2.0,
            "swap_wait_s": 0.5,
            "cut": "budget",
            "streaming": True,
        },
        {
            "node": "auditor",
            "model": "m",
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "seconds": 0.1,
            "swap_wait_s": 0.0,
        },
    ],
}


def test_a_runs_files_and_reports_are_written_in_its_out_folder_only(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    written = write_outputs(out, RESULT)
    assert written == [out / "solution.py", out / "report.json", out / "report.md"]
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.md", "solution.py"]
    assert not (tmp_path / "escape").exists()  # a file's name, never its path
    assert (out / "solution.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert json.loads((out / "report.json").read_text()) == RESULT
    assert (out / "report.md").read_text() == report_markdown(RESULT)


def test_the_markdown_report_has_a_section_for_each_part_of_the_run() -> None:
    text = report_markdown(RESULT)
    assert text.startswith(
        "# edgeswarm run r1\n\n- status: **done**, outcome: **approved**\n"
        "- reason: every check passes\n- revisions: 0\n- tokens: 10 prompt, 5 completion; 9.5 s\n"
        "\n## Task\n\nWrite add(a, b).\n\n## Tests\n\n2 passed, 0 failed\n"
    )
    assert (
        "## Project\n\nWhat the swarm looked up (used: the final code names it):\n\n"
        "- map: pricing.py:round_cents (used)\n- sql: orders\n- note: big.csv: skipped\n"
    ) in text
    assert "## Findings\n\n- security [low] t: d\n" in text
    assert (
        "## ../../escape/solution.py\n\n```python\ndef add(a, b):\n    return a + b\n```\n" in text
    )
    calls = text[text.index("## Calls") :].splitlines()
    assert calls[4:] == [
        "| coder | m | 7 | 3 | 1.5 | 0.0 | looping (its whole code block was kept) |",
        "| coder | m | 3 | 2 | 2.0 | 0.5 | budget (while streaming; dropped) |",
        "| auditor | m | 0 | 0 | 0.1 | 0.0 |  |",
    ]
    bare = report_markdown({"status": "failed", "error": "no endpoint"})
    assert "- reason: no endpoint" in bare and "## Tests" not in bare and "## Project" not in bare


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
