"""structlog, configured once: readable on a terminal, JSON lines otherwise.

Three places an event can go:

- stderr, as JSON lines (``json``, or ``auto`` off a terminal), or as readable text
  (``console``), from ``level`` up;
- a quiet terminal (``auto`` on a terminal, when the command asks for one with
  ``terminal_level``): only events from ``terminal_level`` up (warnings and errors by
  default), one short line each, a traceback cut to its last line;
- the files opened with :func:`log_to_file`: every event, all levels, as JSON lines, whatever
  stderr shows (the CLI keeps one per run).

Every event carries the run id while one is bound (``bind_run``), through structlog's
context variables, so concurrent runs in one process keep their own ids.

Logs never carry secrets: values under secret-looking keys (``token``, ``api_key``,
``authorization``, ``password``...), the values of secret-looking environment variables
(``*TOKEN*``, ``*KEY*``, ``*SECRET*``, ``*PASSWORD*``, 8 characters or more) and of secrets
registered with :func:`add_secrets`, bearer tokens and ``--api-key`` arguments are replaced
by ``[REDACTED]`` wherever they appear, a prompt that echoes one included.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import os
import re
import sys
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, cast

import structlog

from runtime.settings import LogFormat

REDACTED = "[REDACTED]"
MIN_SECRET_CHARS = 8
_SECRET_ENV = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_SECRET_FIELD = re.compile(
    r"^(.*[_-])?(token|api_?key|secret|password|passwd|authorization|credentials?)$",
    re.IGNORECASE,
)
_SECRET_FLAG = r"--[\w-]*(?:api[-_]key|token|secret|password)"  # noqa: S105 (a pattern)
# A secret in a line of text: `Bearer x`, `--api-key x`, `api_key=x`, vLLM's `'api_key': ['x']`.
_INLINE_SECRET = re.compile(
    rf"(\bbearer\s+|{_SECRET_FLAG}[=\s]+|\bapi_key['\"]?\s*[:=]\s*\[?\s*['\"]?)"
    r"(?!REDACTED\])([^\s'\",\[\]]{4,})",
    re.IGNORECASE,
)
_FLAG = re.compile(_SECRET_FLAG, re.IGNORECASE)
_registered: set[str] = set()


def add_secrets(*values: str | None) -> None:
    """Redact these values too (a token read from a file, a backend's API key)."""
    _registered.update(v for v in values if v is not None and len(v) >= MIN_SECRET_CHARS)


class SecretRedactor:
    """A structlog processor replacing secrets in an event (or its rendered text)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._env = {
            value
            for name, value in environ.items()
            if _SECRET_ENV.search(name) and len(value) >= MIN_SECRET_CHARS
        }

    def text(self, text: str) -> str:
        """``text`` with every known secret and inline credential replaced."""
        for secret in sorted(self._env | _registered, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        return _INLINE_SECRET.sub(rf"\1{REDACTED}", text)

    def value(self, value: Any) -> Any:
        """A logged value with secrets redacted, through dicts, lists and tuples."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {
                key: REDACTED
                if isinstance(key, str) and _SECRET_FIELD.match(key)
                else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):  # an argument vector: `--api-key`, then the key
            after_flag = [False, *(isinstance(v, str) and _FLAG.fullmatch(v) for v in value)]
            return type(value)(
                REDACTED if flagged else self.value(item)
                for item, flagged in zip(value, after_flag, strict=False)
            )
        return value

    def __call__(self, _: Any, __: str, event: Any) -> Any:
        """Redact an event dict, or the text a renderer made of it."""
        return self.text(event) if isinstance(event, str) else self.value(event)


TERMINAL_LINE_CHARS = 200
"""A quiet terminal's log line is cut to this many characters (the file keeps it whole)."""
_LEVELS = logging.getLevelNamesMapping()
_files: list[TextIO] = []
_files_lock = threading.Lock()


def configure_logging(
    log_format: LogFormat = LogFormat.AUTO,
    level: str = "info",
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    terminal_level: str | None = None,
) -> None:
    """Configure structlog for this process; later calls reconfigure (tests, CLI flags).

    ``environ`` (default: the process's) is where secret-looking variables are looked up.

    ``terminal_level``: with ``auto`` and ``stream`` a terminal, show only events from this
    level up, one short line each (the files of :func:`log_to_file` still get every event).
    None (the gateway): a terminal gets the readable log from ``level`` up, as ``console``.
    """
    out = stream if stream is not None else cast(TextIO, _Stderr())
    tty = _is_tty(out)
    use_json = log_format is LogFormat.JSON or (log_format is LogFormat.AUTO and not tty)
    quiet = log_format is LogFormat.AUTO and tty and terminal_level is not None
    renderer: Any
    if use_json:
        renderer = structlog.processors.JSONRenderer()
    elif quiet:
        renderer = _short_line
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=tty, exception_formatter=_traceback_formatter()
        )
    # Redacted before rendering (keys, JSON escaping) and after (console tracebacks).
    redactor = SecretRedactor(os.environ if environ is None else environ)
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
        _ToFiles(redactor),
        _AtLeast(terminal_level if quiet and terminal_level is not None else level),
    ]
    if use_json or quiet:  # the console renderer formats exceptions itself
        processors.append(structlog.processors.format_exc_info)
    structlog.configure(
        processors=[*processors, redactor, renderer, redactor],
        # Every level reaches the processors: the files take them all, _AtLeast filters stderr.
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


@contextmanager
def log_to_file(path: Path) -> Iterator[Path]:
    """Append every event this process logs inside the block to ``path``, as JSON lines.

    All levels, whatever stderr shows; secrets redacted as on stderr. Takes effect once
    :func:`configure_logging` has run. The directory is created.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as file:
        with _files_lock:
            _files.append(file)
        try:
            yield path
        finally:
            with _files_lock:
                _files.remove(file)


class _ToFiles:
    """A processor that writes each event to the open log files, then passes it on."""

    def __init__(self, redactor: SecretRedactor) -> None:
        self._redactor = redactor
        self._render = structlog.processors.JSONRenderer()

    def __call__(self, logger: Any, method: str, event: Any) -> Any:
        if not _files:
            return event
        copy = structlog.processors.format_exc_info(logger, method, dict(event))
        line = self._redactor.text(str(self._render(logger, method, self._redactor.value(copy))))
        with _files_lock:
            for file in _files:
                file.write(line + "\n")
                file.flush()
        return event


class _AtLeast:
    """A processor that drops events below a level (stderr's; the files saw them first)."""

    def __init__(self, level: str) -> None:
        self._level = _LEVELS[level.upper()]

    def __call__(self, _: Any, method: str, event: Any) -> Any:
        name = str(event.get("level", method)).upper()
        if _LEVELS.get(name, logging.INFO) < self._level:
            raise structlog.DropEvent
        return event


def _short_line(_: Any, __: str, event: Any) -> str:
    """One line for a quiet terminal: ``warning: event key=value ...``, cut to fit.

    No timestamp, run id or component (the log file has them); an exception's last line only.
    """
    fields = dict(event)
    level, name = fields.pop("level", "info"), fields.pop("event", "")
    for key in ("timestamp", "run_id", "component"):
        fields.pop(key, None)
    exception = str(fields.pop("exception", "") or "").strip()
    parts = [f"{level}: {name}"]
    parts += [
        f"{key}={value!r}"
        if isinstance(value, str) and not value.isidentifier()
        else f"{key}={value}"
        for key, value in fields.items()
    ]
    if exception:
        parts.append(f"({exception.splitlines()[-1]})")
    text = " ".join(" ".join(parts).split())  # one line, whatever the values hold
    if len(text) > TERMINAL_LINE_CHARS:
        text = text[: TERMINAL_LINE_CHARS - 3] + "..."
    return text


def more_quiet(level: str, than: str = "warning") -> str:
    """The higher of two level names: ``level``, but never below ``than``."""
    return level if _LEVELS[level.upper()] >= _LEVELS[than.upper()] else than


def _traceback_formatter() -> Any:
    """Tracebacks without local variables: those would print prompts and keys."""
    if importlib.util.find_spec("rich") is None:
        return structlog.dev.plain_traceback
    return structlog.dev.RichTracebackFormatter(show_locals=False)


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
