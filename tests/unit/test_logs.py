import io
import json
import re
from pathlib import Path

from runtime.logs import (
    REDACTED,
    TERMINAL_LINE_CHARS,
    add_secrets,
    bind_run,
    configure_logging,
    get_logger,
    log_to_file,
    more_quiet,
)
from runtime.settings import LogFormat


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_json_lines_when_not_a_tty_and_run_id_on_every_event() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.AUTO, "info", stream=out)
    log = get_logger("test")
    with bind_run("run123"):
        log.info("first", n=1)
        log.debug("hidden")
    log.info("after")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["first", "after"]
    assert lines[0]["run_id"] == "run123" and lines[0]["component"] == "test"
    assert "run_id" not in lines[1]
    assert lines[0]["level"] == "info" and "timestamp" in lines[0]


def test_console_format_on_request() -> None:
    out = io.StringIO()
    configure_logging(LogFormat.CONSOLE, "debug", stream=out)
    get_logger("test").debug("visible", key="v")
    text = out.getvalue()
    assert "visible" in text and "key=v" in text
    assert not text.lstrip().startswith("{")


def test_exceptions_render_in_both_formats() -> None:
    for fmt in (LogFormat.JSON, LogFormat.CONSOLE):
        out = io.StringIO()
        configure_logging(fmt, "info", stream=out)
        try:
            raise RuntimeError("kaboom")
        except RuntimeError:
            get_logger("test").exception("failed")
        assert "kaboom" in out.getvalue()


def log_failure(secret: str) -> None:
    """A traceback whose message holds ``secret`` (its frame shows no other literal)."""
    try:
        raise RuntimeError(f"failed with {secret}")
    except RuntimeError:
        get_logger("test").exception("failed")


def test_secrets_never_reach_the_logs() -> None:
    secret, registered = "s3cr3t-from-the-env", "token-from-a-file-42"
    environ = {"MY_API_KEY": secret, "SHORT_TOKEN": "abc", "HOME": "/home/someone"}
    add_secrets(registered)
    for fmt in (LogFormat.JSON, LogFormat.CONSOLE, LogFormat.AUTO):  # AUTO: a quiet terminal
        out = Terminal() if fmt is LogFormat.AUTO else io.StringIO()
        configure_logging(fmt, "info", stream=out, environ=environ, terminal_level="info")
        log = get_logger("test")
        log.info(
            "prompt", text=f"the key is {secret}, the token {registered}", home="/home/someone"
        )
        log.info(
            "call",
            api_key="sk-plain-in-a-dict",
            headers={"Authorization": "Bearer abc.def.ghi"},
            args=["vllm", "--api-key", "sk-in-a-command"],
            prompt_tokens=12,
        )
        log.warning("load_failed", error="vLLM: non-default args: {'api_key': ['sk-vllm-arg']}")
        log_failure(secret)
        text = out.getvalue()
        leaks = ("sk-plain-in-a-dict", "abc.def.ghi", "sk-in-a-command", "sk-vllm-arg")
        for leaked in (secret, registered, *leaks):
            assert leaked not in text, (fmt, leaked, text)
        assert text.count(REDACTED) >= 7 and "/home/someone" in text
        assert re.search(r"prompt_tokens\W+12", text), "a count is not a secret"


def test_a_quiet_terminal_shows_warnings_and_errors_one_short_line_each() -> None:
    out = Terminal()
    configure_logging(LogFormat.AUTO, "info", stream=out, terminal_level="warning")
    log = get_logger("test")
    with bind_run("run123"):
        log.debug("hidden_debug")
        log.info("hidden_info", n=1)
        log.warning("node_failed", node="coder", error="model m: no code\nat all")
        log.error("too_long", text="x" * 1000)
        try:
            raise RuntimeError("kaboom")
        except RuntimeError:
            log.exception("failed")
    lines = out.getvalue().splitlines()
    assert lines[0] == "warning: node_failed node=coder error='model m: no code\\nat all'"
    assert lines[1].startswith("error: too_long text=xxx") and lines[1].endswith("...")
    assert len(lines[1]) == TERMINAL_LINE_CHARS
    assert lines[2] == "error: failed (RuntimeError: kaboom)"  # the traceback's last line
    assert len(lines) == 3 and "hidden" not in out.getvalue() and "\x1b[" not in out.getvalue()


def test_a_terminal_without_a_terminal_level_gets_the_readable_log() -> None:
    """The gateway (a server in the foreground) shows its info events, as before."""
    out = Terminal()
    configure_logging(LogFormat.AUTO, "info", stream=out)
    get_logger("test").info("listening", port=8100)
    assert "listening" in out.getvalue() and "port" in out.getvalue()


def test_the_quiet_rule_is_for_terminals_only() -> None:
    for fmt, tty in ((LogFormat.AUTO, False), (LogFormat.JSON, True), (LogFormat.CONSOLE, True)):
        out = Terminal() if tty else io.StringIO()
        configure_logging(fmt, "info", stream=out, terminal_level="warning")
        get_logger("test").info("shown", n=1)
        assert "shown" in out.getvalue(), fmt
        assert out.getvalue().lstrip().startswith("{") is (fmt is not LogFormat.CONSOLE)


def test_a_log_file_gets_every_event_whatever_stderr_shows(tmp_path: Path) -> None:
    out = Terminal()
    configure_logging(
        LogFormat.AUTO,
        "info",
        stream=out,
        environ={"MY_TOKEN": "s3cr3t-t0ken"},
        terminal_level="warning",
    )
    log = get_logger("test")
    path = tmp_path / "run" / "run.log.jsonl"
    log.info("before")
    with bind_run("run123"), log_to_file(path) as written:
        assert written == path
        log.debug("details", prompt="the token is s3cr3t-t0ken")
        log.info("node_done", node="coder")
        log.warning("slow", seconds=3.5)
        try:
            raise ValueError("bad")
        except ValueError:
            log.exception("failed")
    log.info("after")
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["event"] for e in events] == ["details", "node_done", "slow", "failed"]
    assert [e["level"] for e in events] == ["debug", "info", "warning", "error"]
    assert all(e["run_id"] == "run123" and "timestamp" in e for e in events)
    assert "ValueError: bad" in events[-1]["exception"]  # the whole traceback
    assert "s3cr3t-t0ken" not in path.read_text() and REDACTED in events[0]["prompt"]
    assert out.getvalue().splitlines() == [
        "warning: slow seconds=3.5",
        "error: failed (ValueError: bad)",
    ]


def test_more_quiet() -> None:
    assert more_quiet("info") == "warning" and more_quiet("debug") == "warning"
    assert more_quiet("error") == "error" and more_quiet("warning") == "warning"
