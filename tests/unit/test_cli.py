import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import EXIT_ENVIRONMENT, EXIT_FAILED, EXIT_OK, EXIT_UNRESOLVED, EXIT_USAGE, main
from runtime.process import free_port
from tests.fakes import FakeOpenAI
from tests.support import ROOT
from tests.support.network import allow_loopback_port
from tests.support.scripts import BAD_CODE, GOOD_CODE, approve_script, brief, round_steps


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))


def test_run_against_a_server_prints_json(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    approve_script(fake_openai)
    args = ["run", "--json", "--base-url", fake_openai.base_url, "--model", "fake-model", "add"]
    code = main(args)
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    output = json.loads(captured.out)
    assert output["status"] == "done"
    assert output["report"]["outcome"] == "approved"
    assert output["report"]["files"]["solution.py"] == GOOD_CODE
    assert output["endpoint"] == fake_openai.base_url
    assert len(output["run_id"]) == 12
    # the fake serves one model: every role was mapped to it, the fallback dropped
    assert {body["model"] for body in fake_openai.requests()} == {"fake-model"}
    assert "[coder] fake-model" in captured.err  # live progress, call by call
    assert "[coder] 1 candidate, 1 passes the 2 checks" in captured.err  # and each decision
    assert not re.search(r"^\[\w+\]\s*$", captured.err, re.MULTILINE)  # never a bare `[coder]`


def test_run_logs_every_event_to_a_file_in_its_out_directory(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    approve_script(fake_openai)
    out = tmp_path / "out"
    assert main(["run", "--out", str(out), "--base-url", fake_openai.base_url, "add"]) == EXIT_OK
    err = capsys.readouterr().err
    log = out / "run.log.jsonl"
    assert f"edgeswarm: log {log}" in err
    assert f"edgeswarm: wrote solution.py, test_solution.py, report.json, report.md in {out}" in err
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert {"run_started", "node_done", "progress"} <= {e["event"] for e in events}


def test_a_run_without_out_logs_to_the_state_directory(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    approve_script(fake_openai)
    assert main(["run", "--json", "--base-url", fake_openai.base_url, "add"]) == EXIT_OK
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    log = tmp_path / "state" / "logs" / "runs" / f"{thread}.log.jsonl"
    assert any(json.loads(line)["event"] == "node_done" for line in log.read_text().splitlines())


@pytest.mark.parametrize(("flags", "shown"), [([], False), (["--log-level", "info"], True)])
def test_a_terminal_shows_info_events_only_when_asked(
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    shown: bool,
) -> None:
    """On a terminal, warnings and errors only, unless ``--log-level`` says otherwise."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    approve_script(fake_openai)
    assert main([*flags, "run", "--base-url", fake_openai.base_url, "add"]) == EXIT_OK
    err = capsys.readouterr().err
    assert ("info: node_done node=researcher" in err) is shown
    assert "warning: node_failed node=coder" in err  # a sampled candidate with no code
    assert not [line for line in err.splitlines() if line.startswith("{")]


def test_run_pretty_output(fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    approve_script(fake_openai)
    assert main(["run", "--base-url", fake_openai.base_url, "add two numbers"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "outcome approved" in out and "--- solution.py ---" in out and "return a + b" in out


def test_unresolved_run_exits_4_with_reason(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.script(brief(), *(round_steps(BAD_CODE) * 2))
    task = "Write `add(a, b)`: add(2, 3) == 5."
    code = main(["run", "--max-revisions", "1", "--base-url", fake_openai.base_url, task])
    assert code == EXIT_UNRESOLVED
    assert "checks still fail after 1 revision(s)" in capsys.readouterr().out


def test_failed_agent_exits_1_with_reason(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad, bad, bad)
    assert main(["run", "--base-url", fake_openai.base_url, "add"]) == EXIT_FAILED
    assert "researcher:" in capsys.readouterr().out


def test_run_writes_outputs(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    approve_script(fake_openai)
    out_dir = tmp_path / "out"
    assert main(["run", "--out", str(out_dir), "--base-url", fake_openai.base_url, "add"]) == 0
    assert (out_dir / "solution.py").read_text() == GOOD_CODE
    assert (out_dir / "test_solution.py").exists()
    report = json.loads((out_dir / "report.json").read_text())
    assert report["report"]["outcome"] == "approved" and report["task"] == "add"
    markdown = (out_dir / "report.md").read_text()
    assert "outcome: **approved**" in markdown and "| coder | fake-model |" in markdown


@pytest.mark.parametrize(
    ("flag", "message"),
    [("--workspace", "is not a readable directory"), ("--database", "does not exist")],
)
def test_bad_workspace_or_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, message: str
) -> None:
    code = main(
        ["run", flag, str(tmp_path / "missing"), "--base-url", "http://127.0.0.1:9/v1", "t"]
    )
    assert code == EXIT_USAGE
    assert message in capsys.readouterr().err


# Root reads every directory whatever its mode: as root, the CLI runs without the two
# capabilities that allow that, as an ordinary user would meet such a directory.
WITHOUT_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_unreadable_workspace_is_a_usage_error(tmp_path: Path) -> None:
    """A directory the user cannot list is refused before the run starts (exit 2)."""
    workspace = tmp_path / "secret"
    workspace.mkdir()
    workspace.chmod(0)
    args = ["run", "--workspace", str(workspace), "--base-url", "http://127.0.0.1:9/v1", "t"]
    command = [sys.executable, "-m", "app.cli", *args]
    if os.geteuid() == 0:
        command = [*WITHOUT_DAC, *command]
    env = {**os.environ, "EDGESWARM_STATE_DIR": str(tmp_path / "state")}
    try:
        done = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        workspace.chmod(0o755)
    assert done.returncode == EXIT_USAGE, done.stderr
    assert f"workspace {workspace} is not a readable directory (Permission denied)" in done.stderr
    assert not (tmp_path / "state" / "runs.sqlite").exists()  # refused before a run was recorded


def test_a_database_that_is_not_sqlite_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("not a database\n" * 100)
    args = ["run", "--database", str(notes), "--base-url", "http://127.0.0.1:9/v1", "t"]
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"database {notes} cannot be read as SQLite" in err and "not a database" in err
    assert notes.read_text() == "not a database\n" * 100  # untouched
    assert not (tmp_path / "state" / "runs.sqlite").exists()  # no run was recorded


def test_empty_task_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "  "]) == EXIT_USAGE
    assert "the task is empty" in capsys.readouterr().err


def test_task_from_stdin(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("add two numbers\n"))
    approve_script(fake_openai)
    assert main(["run", "--json", "--base-url", fake_openai.base_url, "-"]) == EXIT_OK
    first = fake_openai.requests()[0]
    assert first["messages"][-1]["content"].strip().endswith("add two numbers")


def test_bad_setting_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGESWARM_CALL_IDLE_S", "-1")
    assert main(["run", "task"]) == EXIT_USAGE
    assert "EDGESWARM_CALL_IDLE_S" in capsys.readouterr().err


def test_the_old_request_deadline_is_refused_naming_its_replacement(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGESWARM_REQUEST_TIMEOUT_S", "180")
    assert main(["run", "task"]) == EXIT_USAGE
    assert "EDGESWARM_CALL_IDLE_S" in capsys.readouterr().err


def test_unpulled_model_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "add two numbers"]) == EXIT_ENVIRONMENT
    assert "edgeswarm models pull" in capsys.readouterr().err


def test_unknown_model_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "pull", "gpt-5"]) == EXIT_USAGE
    assert "unknown model 'gpt-5'" in capsys.readouterr().err


def test_models_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "list", "--json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    assert {row["name"] for row in rows} >= {"qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct"}
    assert all(row["status"] == "not pulled" for row in rows)


def test_a_model_the_server_does_not_serve_is_refused_before_a_run_is_recorded(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "../gpt", "add"])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"unknown model '../gpt': {fake_openai.base_url} serves 'fake-model'" in err
    assert [body for body in fake_openai.requests() if "messages" in body] == []
    assert main(["runs"]) == EXIT_OK
    assert "no runs yet" in capsys.readouterr().out


def test_a_server_that_does_not_answer_is_named_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    closed = free_port()  # nothing listens there
    allow_loopback_port(closed)
    started = time.monotonic()
    code = main(["run", "--base-url", f"http://127.0.0.1:{closed}/v1", "add two numbers"])
    assert code == EXIT_ENVIRONMENT and time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert f"the server at http://127.0.0.1:{closed}/v1 does not answer" in err
    assert "edgeswarm resume" not in err  # checked before a run is recorded: none to resume
    assert main(["runs"]) == EXIT_OK
    assert "no runs yet" in capsys.readouterr().out


def test_a_task_over_the_size_limit_is_a_usage_error(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "x" * 1_000_000
    assert main(["run", "--base-url", fake_openai.base_url, huge]) == EXIT_USAGE
    assert "the limit is" in capsys.readouterr().err
    assert fake_openai.requests() == []  # refused before any model call


def test_an_unknown_model_is_refused_before_a_run_is_recorded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--model", "nope", "add two numbers"]) == EXIT_USAGE
    assert "unknown model 'nope'" in capsys.readouterr().err
    assert main(["runs"]) == EXIT_OK
    assert "no runs yet" in capsys.readouterr().out


def test_a_value_error_inside_a_recorded_run_is_a_failure_not_bad_input(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 means "bad input, no run recorded": an error the run itself raises is exit 1."""
    from app import runner

    async def refused(*_args: object, **_kwargs: object) -> None:
        raise ValueError("1 validation error for AuditReport")  # as pydantic raises mid-run

    monkeypatch.setattr(runner, "run_checkpointed", refused)
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "fake-model", "add"])
    err = capsys.readouterr().err
    assert code == EXIT_FAILED, err
    assert "the run stopped: 1 validation error for AuditReport" in err
    thread = re.search(r"edgeswarm resume ([0-9a-f-]+)", err)
    assert thread is not None  # recorded, and said how to continue it
    assert main(["runs", "--json"]) == EXIT_OK
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["thread_id"] == thread.group(1) and listed["status"] == "interrupted"


def test_a_log_file_that_cannot_be_written_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli import _log_file
    from runtime.logs import configure_logging
    from runtime.settings import LogFormat

    configure_logging(LogFormat.JSON, "info")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with _log_file(blocker / "run.log.jsonl", "edgeswarm: log"):
        pass
    err = capsys.readouterr().err
    assert "log_file_unwritable" in err and "edgeswarm: log" not in err


@pytest.mark.parametrize("port", ["99999", "0", "http"])
def test_a_port_out_of_range_is_a_usage_error(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["gateway", "--port", port])
    assert stop.value.code == EXIT_USAGE
    assert "--port" in capsys.readouterr().err


def test_a_reader_that_leaves_gets_no_traceback(tmp_path: Path) -> None:
    """``edgeswarm runs --json | head``: the pipe closes while the command still writes."""
    script = (
        "import sys\n"
        "import app.cli as cli\n"
        "def many(args):\n"
        "    for i in range(200000):\n"
        "        print(f'run {i}')\n"
        "    return 0\n"
        "cli.cmd_runs = many\n"
        "sys.exit(cli.main(['runs', '--json']))\n"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "EDGESWARM_STATE_DIR": str(tmp_path)},
    )
    assert writer.stdout is not None and writer.stderr is not None
    assert writer.stdout.readline() == b"run 0\n"
    writer.stdout.close()  # as `head -1` does
    err = writer.stderr.read().decode()
    writer.stderr.close()
    assert writer.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
