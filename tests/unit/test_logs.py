import io
import json
import re

from runtime.logs import REDACTED, add_secrets, bind_run, configure_logging, get_logger
from runtime.settings import LogFormat


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
    for fmt in (LogFormat.JSON, LogFormat.CONSOLE):
        out = io.StringIO()
        configure_logging(fmt, "info", stream=out, environ=environ)
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
