"""One typed settings object for edgeswarm, read once at the edge.

Precedence, highest first: explicit values (CLI flags, keyword arguments), environment
variables (``EDGESWARM_*``), an env file (``edgeswarm.env`` in the working directory, or the
file named by ``EDGESWARM_ENV_FILE``), then the defaults below. Nodes never read the
environment themselves; they get what they need from this object or the run's context.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import platformdirs
from dotenv import dotenv_values
from pydantic import Field, HttpUrl, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "EDGESWARM_"
DEFAULT_ENV_FILE = "edgeswarm.env"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MASK = "***"
# The password in a URL's user info (`user:PASSWORD@`) or in its query (`password=PASSWORD`).
_URL_PASSWORD = re.compile(
    r"^(postgres(?:ql)?://[^:@/?#]*:)([^@/?#]*)(?=@)|([?&]password=)([^&#]*)"
)


class LogFormat(StrEnum):
    """How log events are rendered."""

    AUTO = "auto"
    CONSOLE = "console"
    JSON = "json"


class Device(StrEnum):
    """Which vLLM build serves the embedded models."""

    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"


class SettingsError(ValueError):
    """Settings could not be read; the message names the source and the key."""


@dataclass(frozen=True)
class PostgresURL:
    """A PostgreSQL connection URL, ``postgresql://user:password@host:port/dbname``.

    It prints with its password masked, and :meth:`scrub` masks it in any text (a driver's
    error message may quote the URL), so neither messages nor logs ever show it.
    """

    url: str = field(repr=False)

    def __str__(self) -> str:
        return _URL_PASSWORD.sub(lambda m: f"{m[1] or m[3]}{MASK}", self.url)

    def __repr__(self) -> str:
        return f"PostgresURL({str(self)!r})"

    def passwords(self) -> list[str]:
        """The password as written in the URL and decoded (for redaction)."""
        found = (m[2] or m[4] for m in _URL_PASSWORD.finditer(self.url))
        return sorted({form for raw in found if raw for form in (raw, unquote(raw))}, key=len)

    def scrub(self, text: str) -> str:
        """``text`` with this URL's password masked wherever it appears."""
        text = text.replace(self.url, str(self))
        for secret in reversed(self.passwords()):
            if len(secret) >= 4:  # shorter ones would mask ordinary words; the URL is done above
                text = text.replace(secret, MASK)
        return text

    def check(self) -> None:
        """Parse the URL as libpq will, and check its ports.

        Raises:
            ValueError: the URL is malformed; the message does not show the password.
        """
        from psycopg import Error, conninfo  # only when PostgreSQL is configured

        try:
            params = conninfo.conninfo_to_dict(self.url)
        except Error as err:
            raise ValueError(f"not a valid PostgreSQL URL: {self.scrub(str(err))}") from None
        ports = str(params.get("port", "5432")).split(",")
        if not all(port.isdigit() and 0 < int(port) < 65536 for port in ports):
            raise ValueError(f"not a valid PostgreSQL URL: port {params['port']!r}")


def _default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("edgeswarm")) / "models"


def _default_state_dir() -> Path:
    return Path(platformdirs.user_state_dir("edgeswarm"))


class Settings(BaseSettings):
    """Process-wide edgeswarm settings; see docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=DEFAULT_ENV_FILE,
        env_file_encoding="utf-8",
        extra="forbid",
        validate_default=True,
    )

    models_dir: Path = Field(
        default_factory=_default_cache_dir,
        description="Where pulled, converted models live (one directory per model).",
    )
    state_dir: Path = Field(
        default_factory=_default_state_dir,
        description="Where server logs and run state are written.",
    )
    lock_dir: Path | None = Field(
        default=None,
        description="Machine-wide directory of the gateways' device locks; unset: "
        "/run/edgeswarm if writable, else <tempdir>/edgeswarm-locks.",
    )
    runs_db: str | None = Field(
        default=None,
        description="Where checkpointed runs are kept (resume, runs): a SQLite file, or a "
        "PostgreSQL server as postgresql://user:password@host:port/dbname; default "
        "<state_dir>/runs.sqlite.",
        repr=False,  # a URL may carry a password
    )
    base_url: HttpUrl | None = Field(
        default=None,
        description="An OpenAI-compatible server (vLLM or an edgeswarm gateway) to use instead "
        "of starting the embedded one, e.g. http://127.0.0.1:8000/v1.",
    )
    api_key: str = Field(
        default="EMPTY", description="Bearer token sent to base_url (vLLM ignores it by default)."
    )
    model: str = Field(
        default="qwen2.5-coder-0.5b-instruct",
        description="Catalogue name of the model the embedded server serves for `run`.",
    )
    served_model_name: str | None = Field(
        default=None,
        description="Model name to request from base_url; defaults to `model`.",
    )
    device: Device = Field(default=Device.AUTO, description="vLLM build to use: auto, cpu or cuda.")
    max_model_len: int = Field(default=8192, ge=256, le=131072, description="vLLM context length.")
    cpu_kvcache_gib: int = Field(
        default=2, ge=1, le=512, description="KV cache size for vLLM's CPU backend (GiB)."
    )
    server_start_timeout_s: float = Field(
        default=300.0, gt=0, description="Deadline for a vLLM server to answer /health."
    )
    call_idle_s: float = Field(
        default=120.0,
        gt=0,
        description="A model call is cut only when it got no token and its model made no "
        "progress this long (CLI runs; the embedded gateway's request_idle_s). Calls that "
        "stream are never cut, however slow the machine.",
    )
    gateway_budget_gib: float | None = Field(
        default=None,
        gt=0,
        description="Memory budget of the embedded gateway; unset: NVML on a GPU, on CPU the "
        "RAM free at start less 2 GiB, within 50-75% of the RAM.",
    )
    vllm_extra_args: list[str] = Field(
        default_factory=list, description="Extra command-line arguments for vLLM servers."
    )
    log_format: LogFormat = Field(
        default=LogFormat.AUTO, description="auto (console on a TTY, else JSON), console, json."
    )
    log_level: str = Field(default="info", description="debug, info, warning or error.")

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.lower()
        if level not in {"debug", "info", "warning", "error"}:
            raise ValueError("must be one of debug, info, warning, error")
        return level

    @field_validator("models_dir", "state_dir", "lock_dir")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None

    @field_validator("runs_db")
    @classmethod
    def _runs_location(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith(POSTGRES_SCHEMES):
            PostgresURL(value).check()
            return value
        if "://" in value:
            raise ValueError("must be a SQLite file path or a postgresql:// URL")
        return str(Path(value).expanduser())

    @property
    def request_model_name(self) -> str:
        """Model name to put in requests to base_url."""
        return self.served_model_name or self.model

    def log_dir(self) -> Path:
        """Directory for server log files."""
        return self.state_dir / "logs"

    def runs_database(self) -> Path | PostgresURL:
        """Where checkpointed runs are kept: a SQLite file, or a PostgreSQL database."""
        if self.runs_db is None:
            return self.state_dir / "runs.sqlite"
        if self.runs_db.startswith(POSTGRES_SCHEMES):
            return PostgresURL(self.runs_db)
        return Path(self.runs_db)


def load_settings(env_file: str | os.PathLike[str] | None = None, **explicit: Any) -> Settings:
    """Read settings once: explicit values win over env vars, which win over the env file.

    Explicit values that are ``None`` are ignored, so CLI flags left unset fall through.

    Raises:
        SettingsError: a value is invalid; the message names the key and where it came from.
    """
    given = {key: value for key, value in explicit.items() if value is not None}
    if f"{ENV_PREFIX}REQUEST_TIMEOUT_S" in os.environ:
        raise SettingsError(
            f"{ENV_PREFIX}REQUEST_TIMEOUT_S is no longer read: a fixed deadline cut calls that "
            f"were still streaming. Calls are now cut only when they stall: set "
            f"{ENV_PREFIX}CALL_IDLE_S (seconds without a token or any progress of the model, "
            "default 120) instead"
        )
    file = env_file if env_file is not None else os.environ.get(f"{ENV_PREFIX}ENV_FILE")
    if file is not None and not Path(file).is_file():
        raise SettingsError(f"settings file {file} does not exist")
    try:
        if file is not None:
            return Settings(_env_file=file, **given)  # type: ignore[call-arg]
        return Settings(**given)
    except ValidationError as err:
        raise SettingsError(_describe(err, file, given)) from None


def _describe(
    err: ValidationError, file: str | os.PathLike[str] | None, given: dict[str, Any]
) -> str:
    path = Path(file if file is not None else DEFAULT_ENV_FILE)
    in_file = {key.upper() for key in dotenv_values(path)} if path.is_file() else set()
    lines = []
    for problem in err.errors():
        key = ".".join(str(part) for part in problem["loc"]) or "(settings)"
        if key.upper().startswith(ENV_PREFIX):  # an unknown variable in the env file
            lines.append(f"{key.upper()} in {path}: not a setting")
            continue
        env_name = f"{ENV_PREFIX}{key.upper()}"
        if key in given:
            source = "given on the command line"
        elif env_name in os.environ:
            source = f"from the environment variable {env_name}"
        elif env_name in in_file:
            source = f"from {env_name} in {path}"
        else:
            source = f"set by {env_name}, {path} or the command line"
        lines.append(f"{key} ({source}): {problem['msg']}")
    return "invalid settings: " + "; ".join(lines)
