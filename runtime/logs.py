"""structlog, configured once: readable on a terminal, JSON lines otherwise.

Every event carries the run id while one is bound (``bind_run``), through structlog's
context variables, so concurrent runs in one process keep their own ids.
"""

from __future__ import annotations

import io
import logging
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

import structlog

from runtime.settings import LogFormat


def configure_logging(
    log_format: LogFormat = LogFormat.AUTO, level: str = "info", stream: TextIO | None = None
) -> None:
    """Configure structlog for this process; later calls reconfigure (tests, CLI flags)."""
    out = stream if stream is not None else cast(TextIO, _Stderr())
    use_json = log_format is LogFormat.JSON or (log_format is LogFormat.AUTO and not _is_tty(out))
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=_is_tty(out))
    )
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    if use_json:  # the console renderer formats exceptions itself
        processors.append(structlog.processors.format_exc_info)
    structlog.configure(
        processors=[*processors, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


class _Stderr(io.TextIOBase):
    """Writes to whatever ``sys.stderr`` is at the time (tests and daemons swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def new_run_id() -> str:
    """A short unique id for one run."""
    return uuid.uuid4().hex[:12]


@contextmanager
def bind_run(run_id: str) -> Iterator[str]:
    """Attach ``run_id`` to every log event emitted inside the block."""
    with structlog.contextvars.bound_contextvars(run_id=run_id):
        yield run_id


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """A logger that carries the component name."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(component=name)
    return logger
