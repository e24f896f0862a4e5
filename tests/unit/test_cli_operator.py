"""Issue 42, the CLI: each bad input of the operator's list gives one clear line on stderr, no
traceback, and the exit code ``edgeswarm --help`` documents; every ``--help`` has examples and
defaults; ``edgeswarm --version`` works; ``models pull`` shows its progress."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from app import cli
from app.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, build_parser, main
from app.runs import RunOptions, RunStore, using
from runtime.gateway import cli as gateway_cli
from runtime.process import free_port
from tests.fakes import fake_command
from tests.support import ROOT
from tests.support.network import allow_loopback_port

EXIT_BROKEN_PIPE = 141


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("EDGESWARM_RUNS_DB", raising=False)
    monkeypatch.delenv("EDGESWARM_BASE_URL", raising=False)


def edgeswarm(
    *args: str | bytes, stdin: bytes | None = None, module: str = "app.cli"
) -> subprocess.CompletedProcess[str]:
    """``edgeswarm ARGS`` in a process of its own, as an operator runs it."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def one_clear_line(err: str) -> str:
    """The single line of ``err``, after checking it is one line and no traceback."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- the list ---------------------------------------------------------------------------------


def test_a_port_out_of_range_is_a_usage_error_not_an_overflow_traceback() -> None:
    done = edgeswarm("gateway", "--port", "99999")
    assert done.returncode == EXIT_USAGE
    assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
    assert "argument --port: a port is 1 to 65535, not 99999" in done.stderr


def make_runs(count: int) -> None:
    """``count`` recorded runs in this test's runs database."""
    where = Path(os.environ["EDGESWARM_STATE_DIR"]) / "runs.sqlite"

    async def create(store: RunStore) -> None:
        for number in range(count):
            await store.create(f"task number {number}", RunOptions(model="m"))

    using(where, create)


def test_a_reader_that_leaves_ends_runs_json_quietly_with_141() -> None:
    """``edgeswarm runs --json | head -1``: more JSON than a pipe holds, the reader leaves."""
    make_runs(400)  # about 100 kB of JSON: past a pipe's 64 kB
    writer = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "runs", "--json", "--limit", "1000"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert writer.stdout is not None and writer.stderr is not None
    assert writer.stdout.readline() == b"[\n"
    writer.stdout.close()  # as `head -1` does
    err = writer.stderr.read().decode()
    writer.stderr.close()
    assert writer.wait(timeout=120) == EXIT_BROKEN_PIPE, err
    assert err == ""  # no traceback, and nothing else: the reader chose to stop


def gateway_config(tmp_path: Path) -> Path:
    config = {
        "device": "cpu",
        "state_dir": str(tmp_path / "gateway-state"),
        "budget": {"bytes": "1GiB"},
        "models": [
            {"name": "a", "backend": "command", "command": fake_command(), "footprint": "100MiB"}
        ],
    }
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port this test process listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_a_busy_port_is_one_line_naming_the_port_and_its_holder(
    tmp_path: Path, busy_port: int
) -> None:
    done = edgeswarm("gateway", "--config", str(gateway_config(tmp_path)), "--port", str(busy_port))
    assert done.returncode == EXIT_ENVIRONMENT, done.stderr
    assert done.stdout == ""  # no banner saying it serves
    line = one_clear_line(done.stderr)
    assert line.startswith(
        f"edgeswarm gateway: error: port {busy_port} on 127.0.0.1 is already in use"
    )
    assert f"by pid {os.getpid()} (" in line and "choose another --port" in line


BIND_RACE = """
import sys
import runtime.gateway.cli as gateway
real, calls = gateway.listen_problem, []
def free_at_first(host, port):  # the port is taken between the check and uvicorn's bind
    calls.append(port)
    return None if len(calls) == 1 else real(host, port)
gateway.listen_problem = free_at_first
sys.exit(gateway.main(sys.argv[1:]))
"""


def test_a_port_taken_after_the_check_still_ends_with_our_line(
    tmp_path: Path, busy_port: int
) -> None:
    """Uvicorn's own exit when its bind fails no longer hides edgeswarm's message."""
    config = str(gateway_config(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", BIND_RACE, "--config", config, "--port", str(busy_port)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == EXIT_ENVIRONMENT, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"edgeswarm gateway: error: port {busy_port} on 127.0.0.1 is already in use"
    )


@pytest.mark.parametrize(
    ("args", "stdin", "expected"),
    [
        (["-"], b"Write add(a, b)\xff\xfe\x00\x80 returning the sum", "the task on stdin is not"),
        ([b"Write add(a, b) \xff\xfe"], None, "the task is not UTF-8 text"),
    ],
    ids=["stdin", "argv"],
)
def test_binary_bytes_as_the_task_are_one_clear_line(
    args: list[str | bytes], stdin: bytes | None, expected: str
) -> None:
    done = edgeswarm("run", "--base-url", "http://127.0.0.1:9/v1", *args, stdin=stdin)
    assert done.returncode == EXIT_USAGE
    line = one_clear_line(done.stderr)
    assert line.startswith(f"edgeswarm: error: {expected}") and "surrogates" not in line
    assert not (Path(os.environ["EDGESWARM_STATE_DIR"]) / "runs.sqlite").exists()  # no run


def test_a_directory_as_database_is_named_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    args = ["run", "--database", str(folder), "--base-url", "http://127.0.0.1:9/v1", "t"]
    assert main(args) == EXIT_USAGE
    line = one_clear_line(capsys.readouterr().err)
    assert line == f"edgeswarm: error: database {folder} is a directory, not a SQLite file"


def test_a_directory_as_the_runs_database_is_named_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    monkeypatch.setenv("EDGESWARM_RUNS_DB", str(folder))
    assert main(["runs"]) == EXIT_ENVIRONMENT
    line = one_clear_line(capsys.readouterr().err)
    assert f"runs database {folder} cannot be opened for writing: it is a directory" in line


def test_a_dead_base_url_records_no_run_and_suggests_no_resume(
    capsys: pytest.CaptureFixture[str],
) -> None:
    closed = free_port()  # nothing listens there
    allow_loopback_port(closed)
    url = f"http://127.0.0.1:{closed}/v1"
    assert main(["run", "--base-url", url, "add two numbers"]) == EXIT_ENVIRONMENT
    line = one_clear_line(capsys.readouterr().err)
    assert line.startswith(f"edgeswarm: error: the server at {url} does not answer")
    assert "resume" not in line
    assert main(["runs", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out) == []  # no ghost "interrupted" run


# -- help, defaults, version ------------------------------------------------------------------


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from parsers(child)


ALL_PARSERS = list(parsers(build_parser()))


@pytest.mark.parametrize("parser", ALL_PARSERS, ids=[p.prog for p in ALL_PARSERS])
def test_every_help_has_examples_and_each_option_its_default(
    parser: argparse.ArgumentParser,
) -> None:
    text = parser.format_help()
    assert "examples:" in text and "exit codes" in text
    assert "``" not in text and ":mod:" not in text  # no developer docstring
    formatter = gateway_cli.HelpFormatter(parser.prog)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        assert action.help, f"{parser.prog}: {action.dest} has no help"
        flag = action.nargs == 0  # --json, --all, --help, --version: on or off
        required = not action.option_strings and action.nargs is None
        if flag or required:
            continue
        shown = formatter._get_help_string(action) or ""
        assert "default" in shown, f"{parser.prog} {action.dest}: {shown}"
    if parser.prog != "edgeswarm models":
        assert "--log-format" in text and "--log-level" in text


def test_the_top_level_help_lists_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == EXIT_OK
    out = capsys.readouterr().out
    codes = out.split("exit codes:")[1]
    for code in (0, 1, 2, 3, 4, 5, 6, 129, 130, 141, 143):
        assert f"{code}" in codes, code
    assert f"{cli.EXIT_UNRESOLVED}    unresolved" in codes
    assert f"{cli.EXIT_NO_RUN}    resume: no run" in codes


def test_run_model_help_says_it_sets_every_role() -> None:
    [run] = [p for p in ALL_PARSERS if p.prog == "edgeswarm run"]
    [model] = [a for a in run._actions if a.dest == "model"]
    assert model.help is not None and "every role" in model.help
    assert "embedded server" not in model.help


def test_the_settings_options_work_after_the_command_too() -> None:
    args = build_parser().parse_args(["--log-level", "info", "run", "--log-format", "json", "t"])
    assert (args.log_level, args.log_format) == ("info", "json")
    later = build_parser().parse_args(["--log-level", "info", "runs", "--log-level", "error"])
    assert later.log_level == "error"
    neither = build_parser().parse_args(["runs"])
    assert (neither.log_level, neither.log_format, neither.env_file) == (None, None, None)


def test_version() -> None:
    done = edgeswarm("--version")
    assert done.returncode == EXIT_OK
    assert done.stdout.strip() == f"edgeswarm {metadata.version('edgeswarm')}"


def test_the_gateway_alone_has_the_same_help() -> None:
    done = edgeswarm("--help", module="runtime.gateway.cli")
    assert done.returncode == EXIT_OK
    assert "examples:" in done.stdout and "--log-level {debug,info,warning,error}" in done.stdout
    assert "the lowest level of the events on stderr" in done.stdout
    assert "``" not in done.stdout
