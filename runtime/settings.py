"""One typed settings object for edgeswarm, read once at the edge.

Precedence, highest first: explicit values (CLI flags, keyword arguments), environment
variables (``EDGESWARM_*``), an env file (``edgeswarm.env`` in the working directory, or the
file named by ``EDGESWARM_ENV_FILE``), then the defaults below. Nodes never read the
environment themselves; they get what they need from this object or the run's context.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import Field, HttpUrl, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "EDGESWARM_"
DEFAULT_ENV_FILE = "edgeswarm.env"


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


def _default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("edgeswarm")) / "models"


def _default_state_dir() -> Path:
    return Path(platformdirs.user_state_dir("edgeswarm"))


class Settings(BaseSettings):
    """Process-wide edgeswarm settings; see the README's Configuration section."""

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
    request_timeout_s: float = Field(
        default=180.0, gt=0, description="Deadline for one LLM request."
    )
    gateway_budget_gib: float | None = Field(
        default=None,
        gt=0,
        description="Memory budget of the embedded gateway; unset: NVML on a GPU, half the RAM "
        "on CPU.",
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

    @field_validator("models_dir", "state_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @property
    def request_model_name(self) -> str:
        """Model name to put in requests to base_url."""
        return self.served_model_name or self.model

    def log_dir(self) -> Path:
        """Directory for server log files."""
        return self.state_dir / "logs"


def load_settings(env_file: str | os.PathLike[str] | None = None, **explicit: Any) -> Settings:
    """Read settings once: explicit values win over env vars, which win over the env file.

    Explicit values that are ``None`` are ignored, so CLI flags left unset fall through.

    Raises:
        SettingsError: a value is invalid; the message names the key and where it came from.
    """
    given = {key: value for key, value in explicit.items() if value is not None}
    file = env_file if env_file is not None else os.environ.get(f"{ENV_PREFIX}ENV_FILE")
    if file is not None and not Path(file).is_file():
        raise SettingsError(f"settings file {file} does not exist")
    try:
        if file is not None:
            return Settings(_env_file=file, **given)  # type: ignore[call-arg]
        return Settings(**given)
    except ValidationError as err:
        raise SettingsError(_describe(err, file)) from None


def _describe(err: ValidationError, file: str | os.PathLike[str] | None) -> str:
    source = f"{file} or " if file else f"{DEFAULT_ENV_FILE} or "
    lines = []
    for problem in err.errors():
        key = ".".join(str(part) for part in problem["loc"]) or "(settings)"
        env_name = f"{ENV_PREFIX}{key.upper()}"
        lines.append(f"{key} ({env_name}, {source}the command line): {problem['msg']}")
    return "invalid settings: " + "; ".join(lines)
