"""The gateway's YAML config, validated by pydantic with errors that name the file and the key.

A config holds the device, the memory budget, the scheduling knobs and the models. Checks that
need more than one field (unique names, ``swap: sleep`` only on CUDA, every footprint within the
budget) run when the file is loaded, so a bad config fails before anything starts.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    HttpUrl,
    ValidationError,
    WithJsonSchema,
    field_validator,
)

from runtime.settings import Device

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*$", re.IGNORECASE)
_SIZE_PATTERN = r"^\s*\d+(\.\d+)?\s*([kKmMgGtT][iI]?[bB]|[bB])?\s*$"


class ConfigError(ValueError):
    """The gateway config is invalid; the message names the file and the key."""


def parse_size(value: object) -> int:
    """Bytes from an int or a string such as ``"3.5GiB"``, ``"512 MiB"`` or ``"4GB"``."""
    if isinstance(value, bool):
        raise ValueError("a size is a number of bytes or a string like '4GiB'")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a size cannot be negative")
        return value
    if isinstance(value, str):
        match = _SIZE_RE.match(value)
        if match:
            return int(float(match[1]) * _UNITS[(match[2] or "").lower()])
    raise ValueError(f"{value!r} is not a size: use bytes or a string like '4GiB', '512MiB'")


Size = Annotated[
    int,
    BeforeValidator(parse_size),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": _SIZE_PATTERN},
            ],
            "description": "Bytes, or a string with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB.",
        }
    ),
]
MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$"
ModelName = Annotated[str, Field(pattern=MODEL_NAME_PATTERN)]
DEFAULT_TOKEN_ENV = "EDGESWARM_GATEWAY_TOKEN"  # noqa: S105 (a variable's name, not a token)
DEFAULT_MAX_BODY = 32 * 2**20
"""The largest request body (32 MiB): a chat request with a 128k-token prompt is about 0.5 MB,
so this leaves room for images sent inline, and none for a body meant to fill the memory."""
MIN_MAX_BODY = 2**10
DEFAULT_MAX_IN_FLIGHT = 64
"""Requests in flight per model unless its config says otherwise (vLLM batches them)."""
_HOST_LABEL = r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"^{_HOST_LABEL}(\.{_HOST_LABEL})*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BudgetConfig(_Strict):
    """How many bytes resident models may use together."""

    bytes: Size | None = Field(
        default=None,
        description="Fixed budget. On CUDA it caps the NVML figure and is the fallback when "
        "NVML fails; on CPU it is the budget.",
    )
    ram_fraction: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="CPU: this fraction of system RAM (used when `bytes` is not set).",
    )
    gpu_memory: Literal["total", "free"] = Field(
        default="total",
        description="CUDA: start from the GPU's total memory or from what is free at start.",
    )
    reserve: Size = Field(
        default=0, description="CUDA: bytes kept free for the CUDA context and other users."
    )
    host_bytes: Size | None = Field(
        default=None,
        description="Host RAM for sleeping models (swap: sleep, level 1); default half the RAM.",
    )


class SchedulingConfig(_Strict):
    """Admission, grouping and time limits."""

    policy: Literal["grouped", "fifo", "fifo-mutex"] = Field(
        default="grouped",
        description="grouped: concurrent admission, queues grouped by model, cost-aware "
        "eviction. fifo: the device swaps in arrival order, ready models still batch, FIFO "
        "eviction (shorter waits, more swaps). fifo-mutex: the naive baseline for benchmarks "
        "(one request at a time, FIFO eviction).",
    )
    max_wait_s: float = Field(
        default=10.0,
        gt=0,
        description="A queued request waits at most this long before the device swaps to its "
        "model, even if the resident model still has work (no model starves).",
    )
    linger_s: float = Field(
        default=2.0,
        ge=0,
        description="A model used this recently is not swapped out for a waiting one before "
        "its group is overdue: a graph node's lease is followed by its request.",
    )
    max_queue: int = Field(
        default=256, ge=1, description="Queued requests, all models together; then 429."
    )
    request_idle_s: float = Field(
        default=120.0,
        gt=0,
        description="A request is cut only when neither it nor its model made progress this "
        "long (no byte relayed, no token prefilled or generated by the model's server, no "
        "load under way): queued, loading, answering or draining. A request that streams is "
        "never cut.",
    )
    request_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="A hard cap on one request (queueing, loading, answer), even while it "
        "makes progress; null: none (request_idle_s decides).",
    )
    drain_timeout_s: float | None = Field(
        default=None,
        ge=0,
        description="A hard cap on how long an evicted model may finish its in-flight "
        "requests, even while they stream; null: none (they finish, cut only when idle for "
        "request_idle_s).",
    )
    idle_ttl_s: float | None = Field(
        default=600.0, gt=0, description="Unload a model idle this long; null keeps it."
    )
    sleep_ttl_s: float | None = Field(
        default=3600.0,
        gt=0,
        description="Stop a sleeping model (swap: sleep) unused this long, freeing the host "
        "RAM it holds; null keeps it asleep until host RAM is needed.",
    )
    watch_interval_s: float = Field(
        default=1.0, gt=0, description="How often backends are checked for a dead process."
    )
    hung_after_s: float | None = Field(
        default=60.0,
        gt=0,
        description="A ready model's server that is alive but answers no health check for "
        "this long, while nothing of its model makes progress, is hung (stopped, deadlocked): "
        "it is marked failed, its requests fail at once (503) instead of each waiting out "
        "request_idle_s, and it is killed; the next request starts a fresh one. null: only a "
        "server that exits is noticed.",
    )
    start_retry_s: float = Field(
        default=30.0,
        ge=0,
        description="After a model failed to start, its requests fail at once (503 with "
        "Retry-After) for this long instead of each starting it again.",
    )
    max_in_flight: int = Field(
        default=DEFAULT_MAX_IN_FLIGHT,
        ge=1,
        description="Requests in flight per model (sent to its server, not yet answered); "
        "more wait in the queue (max_queue, then 429). A model's own max_in_flight wins; a "
        "vLLM model whose extra_args set --max-num-seqs gets at least that many.",
    )


def host_name(value: str) -> str:
    """``value`` as a host name the gateway compares against: lower case, no brackets.

    Raises:
        ValueError: not a bare host name or IP address (a scheme, port or path in it).
    """
    text = value.strip().lower()
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    name = bare.removesuffix(".")
    if not name or len(name) > 253 or not _HOST_NAME.fullmatch(name):
        raise ValueError(
            f"{value!r} is not a host name: give the name or address alone, without scheme, "
            "port or path (e.g. gpu-box.lan, 192.168.1.20, ::1)"
        )
    return name


HostName = Annotated[str, AfterValidator(host_name)]


class HttpConfig(_Strict):
    """What clients may send the gateway, how slowly, and from where."""

    max_body: Size = Field(
        default=DEFAULT_MAX_BODY,
        description="The largest request body; a larger one gets 413 before it is read "
        "(its Content-Length), or as soon as it passes the limit (a chunked body).",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=3600,
        description="A connection must deliver a whole request head (request line and "
        "headers) this long after it opened, or after the request's first byte on a reused "
        "connection; else it is closed (a slow or silent client, before any authentication).",
    )
    body_timeout_s: float = Field(
        default=60.0,
        gt=0,
        le=86400,
        description="A request's body must arrive in full this long after its head; else the "
        "connection is closed.",
    )
    max_connections: int = Field(
        default=1024,
        ge=16,
        description="Open client connections at most (lower when the process may open too "
        "few files). Beyond it a new connection closes the one that has waited longest "
        "without a request in progress, so GET /health still answers; when every "
        "connection has a request in progress, the new one gets 503.",
    )
    allowed_hosts: list[HostName] = Field(
        default_factory=list,
        description="Host names besides those the gateway is bound on, localhost, 127.0.0.1 "
        "and ::1 that clients may reach it by (the Host header), and whose web pages may "
        "call it (the Origin header): a reverse proxy's name, the machine's LAN name.",
    )

    @field_validator("max_body")
    @classmethod
    def _enough_body(cls, value: int) -> int:
        if value < MIN_MAX_BODY:
            raise ValueError(f"must be at least {MIN_MAX_BODY} bytes (1KiB)")
        return value


class AuthConfig(_Strict):
    """Where the bearer token comes from (never the token itself: keep it out of this file)."""

    token_env: str = Field(
        default=DEFAULT_TOKEN_ENV,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Environment variable holding the token. Unset or empty: no token, which "
        "only a loopback bind allows; named here explicitly, it must be set.",
    )
    token_file: Path | None = Field(
        default=None,
        description="File holding the token (surrounding whitespace ignored), relative to this "
        "config file; wins over token_env.",
    )


class _ModelBase(_Strict):
    name: ModelName = Field(description="The `model` clients request.")
    request_timeout_s: float | None = Field(
        default=None, gt=0, description="Overrides scheduling.request_timeout_s."
    )
    max_in_flight: int | None = Field(
        default=None, ge=1, description="Overrides scheduling.max_in_flight for this model."
    )


class _ManagedModel(_ModelBase):
    footprint: Size = Field(
        description="Bytes resident while loaded: weights plus KV cache plus server overhead. "
        "On CPU measure the PSS of the server's process tree; on CUDA the gateway also "
        "measures it with NVML after the load."
    )
    swap: Literal["stop", "sleep"] = Field(
        default="stop",
        description="stop: unload by stopping the server. sleep (CUDA only): vLLM sleep mode.",
    )
    sleep_level: Literal[1, 2] = Field(
        default=1, description="1 keeps weights in host RAM (fast wake), 2 drops them."
    )
    sleep_footprint: Size | None = Field(
        default=None,
        description="Host RAM held while asleep at level 1 (default: the footprint).",
    )
    sleep_device_footprint: Size = Field(
        default=0,
        description="Device memory a sleeping server keeps (CUDA context, graph pools): on "
        "CUDA measured with NVML after each sleep; this figure counts when NVML cannot tell.",
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment.")
    start_timeout_s: float = Field(default=300.0, gt=0, description="Deadline to be healthy.")
    load_estimate_s: float = Field(
        default=30.0, gt=0, description="Reload cost guess until a load is measured."
    )


class VLLMModelConfig(_ManagedModel):
    """A local vLLM server the gateway starts and stops."""

    backend: Literal["vllm"] = Field(description="A vLLM server started by the gateway.")
    model: str = Field(
        min_length=1,
        description="A catalogue name pulled into the models directory, or a model directory.",
    )
    max_model_len: int = Field(default=4096, ge=256, le=131072, description="Context length.")
    cpu_kvcache_gib: int = Field(default=2, ge=1, le=512, description="CPU KV cache (GiB).")
    extra_args: list[str] = Field(
        default_factory=list,
        description="Extra vLLM arguments. On CUDA the gateway adds --gpu-memory-utilization "
        "(the footprint's share of the GPU's memory) unless these set it.",
    )


class CommandModelConfig(_ManagedModel):
    """Any OpenAI-compatible server started from a command line (``{port}`` is substituted)."""

    backend: Literal["command"] = Field(description="A server started from `command`.")
    command: list[str] = Field(
        min_length=1, description="Argument vector; `{port}` and `{name}` are substituted."
    )
    health_path: str = Field(default="/health", description="Answers 200 once ready.")


class RemoteModelConfig(_ModelBase):
    """A server on another host: routed, never swapped, not counted in the budget."""

    backend: Literal["remote"] = Field(description="A fixed OpenAI-compatible endpoint.")
    url: HttpUrl = Field(description="API root, e.g. http://gpu-box:8000/v1.")
    served_name: str | None = Field(
        default=None, description="Model name upstream, when it differs from `name`."
    )
    api_key: str | None = Field(default=None, description="Bearer token sent upstream.")


ModelConfig = Annotated[
    VLLMModelConfig | CommandModelConfig | RemoteModelConfig, Field(discriminator="backend")
]


class GatewayConfig(_Strict):
    """The whole gateway config file."""

    device: Device = Field(default=Device.AUTO, description="auto, cpu or cuda.")
    gpu_index: int = Field(default=0, ge=0, description="CUDA: which GPU this gateway owns.")
    state_dir: Path | None = Field(
        default=None, description="Lock and logs (default: EDGESWARM_STATE_DIR)."
    )
    models_dir: Path | None = Field(
        default=None, description="Pulled models (default: EDGESWARM_MODELS_DIR)."
    )
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    scheduling: SchedulingConfig = Field(default_factory=SchedulingConfig)
    auth: AuthConfig = Field(
        default_factory=AuthConfig,
        description="The bearer token: required to bind beyond loopback; once set, every "
        "route needs it (GET /health answers a bare status without it).",
    )
    http: HttpConfig = Field(
        default_factory=HttpConfig,
        description="Limits on requests and connections, and the host names clients and web "
        "pages may reach the gateway by.",
    )
    models: list[ModelConfig] = Field(min_length=1, description="The models served.")

    def model(self, name: str) -> ModelConfig:
        """The model called ``name``."""
        for entry in self.models:
            if entry.name == name:
                return entry
        raise KeyError(name)


_MAX_NUM_SEQS = ("--max-num-seqs", "--max_num_seqs")


def max_in_flight(entry: ModelConfig, scheduling: SchedulingConfig) -> int:
    """How many requests ``entry`` may have in flight: its own figure, else the default.

    A vLLM model whose ``extra_args`` set ``--max-num-seqs`` (the batch vLLM runs at once)
    gets at least that many, so the cap never keeps its server's batch short.
    """
    if entry.max_in_flight is not None:
        return entry.max_in_flight
    batch = 0
    if isinstance(entry, VLLMModelConfig):
        args = entry.extra_args
        for index, arg in enumerate(args):
            name, _, value = arg.partition("=")
            if name in _MAX_NUM_SEQS and not value and index + 1 < len(args):
                value = args[index + 1]
            if name in _MAX_NUM_SEQS and value.isdigit():
                batch = int(value)
    return max(scheduling.max_in_flight, batch)


def config_schema() -> dict[str, Any]:
    """The JSON schema of the config file (``examples/gateway.schema.json``)."""
    schema = GatewayConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "edgeswarm gateway config"
    return schema


def schema_text() -> str:
    """The schema as the text written to ``examples/gateway.schema.json``."""
    return json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"


def load_config(path: Path, *, device: Device | None = None) -> GatewayConfig:
    """Read, validate and check a config file; ``device`` is the resolved device if known.

    Raises:
        ConfigError: the file is unreadable or invalid; the message names the file and key.
    """
    try:
        with path.open(encoding="utf-8") as stream:  # YAML errors then name the file
            raw = yaml.safe_load(stream)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise ConfigError(f"{path}: cannot read the gateway config: {err}") from None
    return parse_config(raw, origin=str(path), device=device)


def parse_config(raw: object, *, origin: str, device: Device | None = None) -> GatewayConfig:
    """Validate already parsed YAML; ``origin`` names the file in error messages."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{origin}: the gateway config must be a mapping with `models:`")
    try:
        config = GatewayConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(_describe(err, origin, raw)) from None
    check_config(config, origin=origin, device=device)
    return config


def check_config(config: GatewayConfig, *, origin: str, device: Device | None = None) -> None:
    """Cross-field checks: unique names, sleep only on CUDA, footprints within a fixed budget."""
    seen: set[str] = set()
    effective = device or config.device
    for index, entry in enumerate(config.models):
        key = f"models[{index}] ({entry.name})"
        if entry.name in seen:
            raise ConfigError(f"{origin}: {key}.name: duplicate model name {entry.name!r}")
        seen.add(entry.name)
        if isinstance(entry, RemoteModelConfig):
            continue
        if entry.swap == "sleep" and effective is Device.CPU:
            raise ConfigError(
                f"{origin}: {key}.swap: 'sleep' needs vLLM's sleep mode, which the CPU backend "
                "does not have ('Sleep mode is not supported on current platform'); use "
                "swap: stop on CPU"
            )
    if config.budget.bytes is not None:
        check_fits(config, config.budget.bytes, origin=origin, source="budget.bytes")


def check_fits(config: GatewayConfig, budget: int, *, origin: str, source: str) -> None:
    """Reject a model whose footprint alone exceeds the budget (at load, not at run time)."""
    for index, entry in enumerate(config.models):
        if isinstance(entry, RemoteModelConfig):
            continue
        if entry.footprint > budget:
            raise ConfigError(
                f"{origin}: models[{index}] ({entry.name}).footprint: "
                f"{format_bytes(entry.footprint)} exceeds the memory budget "
                f"{format_bytes(budget)} ({source}); it could never be loaded"
            )
        if entry.footprint == 0:
            raise ConfigError(
                f"{origin}: models[{index}] ({entry.name}).footprint: must be more than 0 bytes"
            )
        if entry.sleep_device_footprint > entry.footprint:
            raise ConfigError(
                f"{origin}: models[{index}] ({entry.name}).sleep_device_footprint: "
                f"{format_bytes(entry.sleep_device_footprint)} is more than its footprint"
            )


def crowding_warning(footprints: Mapping[str, int], budget: int, source: str) -> str | None:
    """Why ``footprints`` cannot all be resident at once within ``budget``; None when they can.

    Each model alone may still fit (:func:`check_fits` rejects one that never does): the
    gateway then swaps them, a server stop and start each time on CPU.
    """
    total = sum(footprints.values())
    if len(footprints) < 2 or total <= budget:
        return None
    each = ", ".join(f"{name} {format_bytes(size)}" for name, size in footprints.items())
    return (
        f"the models do not fit in memory together: {each} (together {format_bytes(total)}) "
        f"against a budget of {format_bytes(budget)} ({source}); the gateway will swap them, "
        "which stops and restarts a server each time. Set EDGESWARM_GATEWAY_BUDGET_GIB if the "
        "machine has the room, or serve in bfloat16 (EDGESWARM_VLLM_EXTRA_ARGS="
        '\'["--dtype","bfloat16"]\') to halve the weights'
    )


def format_bytes(count: int) -> str:
    """A byte count for humans, e.g. ``3.50 GiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(count) >= size:
            return f"{count / size:.2f} {unit}"
    return f"{count} B"


def _describe(err: ValidationError, origin: str, raw: dict[str, Any]) -> str:
    problems = []
    for problem in err.errors():
        key = _key(problem["loc"], raw)
        problems.append(f"{key}: {problem['msg']}")
    return f"{origin}: invalid gateway config: " + "; ".join(problems)


def _key(loc: tuple[int | str, ...], raw: dict[str, Any]) -> str:
    """``models[1] (coder).footprint`` from pydantic's location, without union tags."""
    parts: list[str] = []
    previous: int | str | None = None
    for part in loc:
        if isinstance(part, int):
            parts[-1] += f"[{part}]"
            if previous == "models":
                parts[-1] += _model_label(raw, part)
        elif not (isinstance(previous, int) and part in {"vllm", "command", "remote"}):
            parts.append(str(part))
        previous = part
    return ".".join(parts) or "(config)"


def _model_label(raw: dict[str, Any], index: int) -> str:
    models = raw.get("models")
    if isinstance(models, list) and index < len(models) and isinstance(models[index], dict):
        name = models[index].get("name")
        if isinstance(name, str):
            return f" ({name})"
    return ""
