import io
import json

from runtime.logs import bind_run, configure_logging, get_logger
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
