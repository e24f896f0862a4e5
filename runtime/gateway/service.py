"""The gateway assembled: config resolved, backends built, scheduler and proxy wired together.

:func:`prepare` turns a config file into a :class:`GatewaySetup` (device resolved, budget
measured, every model checked against it) or raises :class:`ConfigError` naming the file and
key. :class:`GatewayService` owns the parts at run time: the memory ledger, the model slots,
the swap scheduler and the HTTP client, and forwards admitted requests to their servers.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from starlette.background import BackgroundTask
from starlette.responses import JSONResponse, Response, StreamingResponse

from runtime.gateway.auth import resolve_token
from runtime.gateway.backends import Backend, BackendContext, build_backends
from runtime.gateway.budget import Budget, plan_budget, resolve_device
from runtime.gateway.config import (
    GatewayConfig,
    ModelConfig,
    RemoteModelConfig,
    check_config,
    load_config,
    max_in_flight,
)
from runtime.gateway.errors import GatewayError, ModelUnavailableError, UpstreamError
from runtime.gateway.ledger import MemoryLedger
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.policies import SchedulingPolicy, policy_for
from runtime.gateway.proxy import (
    End,
    Head,
    UpstreamExchange,
    error_body,
    forward_headers,
    sse_error,
)
from runtime.gateway.requestlog import Caller, RequestLog, RequestTrace
from runtime.gateway.slot import Admission, ModelSlot
from runtime.gateway.swap import SwapScheduler
from runtime.process import free_port
from runtime.settings import Device, Settings


@dataclass(frozen=True)
class GatewaySetup:
    """A validated config with its device, budget and directories resolved."""

    config: GatewayConfig
    origin: str
    device: Device
    budget: Budget
    state_dir: Path
    models_dir: Path
    token: str | None = field(default=None, repr=False)
    """The bearer token every route requires; None: no authentication (loopback only)."""

    @property
    def log_dir(self) -> Path:
        """Where the servers' log files go."""
        return self.state_dir / "logs"

    @property
    def secrets(self) -> list[str]:
        """What the logs must never show: the token and the remote backends' keys."""
        keys = [m.api_key for m in self.config.models if isinstance(m, RemoteModelConfig)]
        return [s for s in (self.token, *keys) if s]


def prepare(
    path: Path, settings: Settings | None = None, environ: Mapping[str, str] | None = None
) -> GatewaySetup:
    """Load and check the config at ``path``; resolve its device, budget and token.

    ``environ`` (default: the process's) holds the token variable named by ``auth.token_env``.

    Raises:
        ConfigError: the config is invalid, a model can never fit the budget, or the token
            is unreadable or too weak.
    """
    config = load_config(path)
    origin = str(path)
    device = resolve_device(config)
    check_config(config, origin=origin, device=device)
    budget = plan_budget(config, origin, device)
    defaults = settings if settings is not None else Settings()
    return GatewaySetup(
        config=config,
        origin=origin,
        device=device,
        budget=budget,
        state_dir=(config.state_dir or defaults.state_dir).expanduser(),
        models_dir=(config.models_dir or defaults.models_dir).expanduser(),
        token=resolve_token(config.auth, origin, os.environ if environ is None else environ),
    )


def _slot(entry: ModelConfig, backend: Backend, config: GatewayConfig) -> ModelSlot:
    timeout = entry.request_timeout_s or config.scheduling.request_timeout_s
    idle = config.scheduling.request_idle_s
    cap = max_in_flight(entry, config.scheduling)
    if isinstance(entry, RemoteModelConfig):
        return ModelSlot(
            entry.name,
            backend,
            0,
            0.0,
            request_timeout_s=timeout,
            request_idle_s=idle,
            max_in_flight=cap,
        )
    return ModelSlot(
        entry.name,
        backend,
        entry.footprint,
        entry.load_estimate_s,
        swap=entry.swap,
        sleep_level=entry.sleep_level,
        sleep_host_footprint=entry.sleep_footprint or entry.footprint,
        sleep_device_footprint=entry.sleep_device_footprint,
        request_timeout_s=timeout,
        request_idle_s=idle,
        max_in_flight=cap,
    )


class GatewayService:
    """The running gateway: ledger, slots, swap scheduler, proxy client and metrics."""

    def __init__(
        self,
        setup: GatewaySetup,
        *,
        policy: SchedulingPolicy | None = None,
        port_for: Callable[[], int] = free_port,
    ) -> None:
        config = setup.config
        self.setup = setup
        self.metrics = GatewayMetrics()
        self.request_log = RequestLog(self.metrics)
        """Every request's record, the last ones kept (``GET /logs``, the status page)."""
        self.ledger = MemoryLedger(setup.budget.device_bytes, setup.budget.host_bytes)
        context = BackendContext(
            device=setup.device,
            models_dir=setup.models_dir,
            log_dir=setup.log_dir,
            gpu_index=config.gpu_index,
            gpu_total=setup.budget.gpu_total,
            port_for=port_for,
        )
        backends = build_backends(config, context)
        self.slots = {m.name: _slot(m, backends[m.name], config) for m in config.models}
        self.metrics.know(self.slots)
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(None, connect=10.0),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            trust_env=False,
            verify=_tls(),
        )
        self.scheduler = SwapScheduler(
            self.slots,
            self.ledger,
            policy or policy_for(config.scheduling.policy),
            config.scheduling,
            self.client,
            device=setup.device,
            gpu_index=config.gpu_index,
            metrics=self.metrics,
        )

    async def start(self) -> None:
        """Start the scheduler's coordinator and watchdog (no model is loaded yet)."""
        await self.scheduler.start()

    async def close(self) -> None:
        """Stop every server this gateway started and close the client."""
        try:
            await self.scheduler.close()
        finally:
            await self.client.aclose()

    def model_names(self) -> list[str]:
        """Every configured model, in config order."""
        return list(self.slots)

    async def load(self, name: str, caller: Caller | None = None) -> float:
        """Make ``name`` resident (queued like a request); the seconds it took.

        The call is recorded (kind ``load``): its wait is the swap a swarm's request would
        otherwise show.
        """
        trace = self.request_log.trace("load", name, caller, clock=_monotonic)
        try:
            admission = await self.scheduler.admit(name)
        except BaseException as err:
            trace.failed(err)
            raise
        admission.release()
        trace.admitted()
        trace.finish(200, "ok")
        return trace.elapsed()

    async def forward(
        self,
        name: str,
        path: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        stream: bool,
        caller: Caller | None = None,
    ) -> Response:
        """Admit a request to ``name`` and relay it to the model's server unchanged.

        Its record (:mod:`runtime.gateway.requestlog`) ends with its answer: here when it
        fails before one, when the whole answer is relayed, or when its stream ends.
        """
        kind = "chat" if path.endswith("/chat/completions") else "completion"
        trace = self.request_log.trace(kind, name, caller, stream=stream, clock=_monotonic)
        try:
            return await self._forward(trace, name, path, body, headers, stream=stream)
        except BaseException as err:
            trace.failed(err)
            raise

    async def _forward(
        self,
        trace: RequestTrace,
        name: str,
        path: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        stream: bool,
    ) -> Response:
        slot = self.scheduler.slot(name)
        timeout_s = slot.request_timeout_s  # a hard cap only when configured
        now = asyncio.get_running_loop().time()
        deadline = None if timeout_s is None else now + timeout_s
        admission = await self.scheduler.admit(name, timeout_s=timeout_s)
        trace.admitted()
        exchange = self._exchange(admission, path, body, headers, deadline, timeout_s)
        try:
            first = await exchange.next_event()
        except BaseException:
            admission.release()
            exchange.cancel()
            raise
        if stream and isinstance(first, Head) and first.status == 200:
            return self._streamed(admission, exchange, first, trace)
        trace.stream = False  # answered whole (an error before its stream began)
        return await self._buffered(admission, exchange, first, trace)

    def _exchange(
        self,
        admission: Admission,
        path: str,
        body: bytes,
        headers: Mapping[str, str],
        deadline: float | None,
        timeout_s: float | None,
    ) -> UpstreamExchange:
        backend = admission.slot.backend
        if backend.upstream_model != admission.slot.name:
            body = _renamed(body, backend.upstream_model)
        if not backend.seeds_sampling:
            body = _unseeded_if_sampled(body)
        request = self.client.build_request(
            "POST",
            backend.api_base + path.removeprefix("/v1"),
            content=body,
            headers=forward_headers(headers, backend.api_key),
        )
        return UpstreamExchange(
            self.client, request, admission, deadline=deadline, timeout_s=timeout_s
        )

    async def _buffered(
        self,
        admission: Admission,
        exchange: UpstreamExchange,
        first: Head | bytes | End,
        trace: RequestTrace,
    ) -> Response:
        try:
            if isinstance(first, End):
                content, end = b"", first
            else:
                content, end = await exchange.read_rest()
        finally:
            admission.release()
            await exchange.aclose()
        if end.error is not None:
            error = await self._settle_failure(admission, end)
            trace.failed(error)
            return JSONResponse(error_body(error), status_code=error.status)
        status, headers = (first.status, first.headers) if isinstance(first, Head) else (502, {})
        usage = usage_of(content)
        trace.finish(status, _outcome(status), _upstream_reason(status, content), usage)
        return Response(content, status_code=status, headers=headers)

    def _streamed(
        self, admission: Admission, exchange: UpstreamExchange, head: Head, trace: RequestTrace
    ) -> Response:
        ends: list[End] = []
        finished = False
        name = admission.slot.name
        started = trace.started

        async def finish() -> None:
            nonlocal finished
            if finished:
                return
            finished = True
            # counted before the release: whoever sees the slot free sees the request counted
            # A client that closes once it has read ``[DONE]`` (the OpenAI SDK does) left
            # before the upstream's end was read here, but it has its whole answer.
            if not ends and not trace.tally.done:
                trace.finish(499, "client_disconnected", "the client left during the stream")
            elif not ends or ends[0].error is None:
                trace.finish(head.status, "ok")  # its usage: the stream's last event
            else:
                trace.failed(ends[0].error)  # the relay recorded it, unless it was cut first
            admission.release()
            await exchange.aclose()

        async def relay() -> AsyncIterator[bytes]:
            first = True
            try:
                async for chunk in exchange.chunks(ends):
                    if first and chunk:
                        first = False
                        self.metrics.first_token(name, time.monotonic() - started)
                    trace.chunk(chunk)
                    yield chunk
                if ends and ends[0].error is not None:
                    error = await self._settle_failure(admission, ends[0])
                    trace.failed(error)
                    yield sse_error(error)
            finally:
                await finish()

        # The generator's finally covers a normal end; the background task covers a client
        # that left while the generator was suspended (starlette then never resumes it).
        return StreamingResponse(
            relay(),
            status_code=head.status,
            headers=head.headers,
            background=BackgroundTask(finish),
        )

    async def _settle_failure(self, admission: Admission, end: End) -> GatewayError:
        """The error of a failed exchange; when the server died, mark it failed for a restart."""
        name = admission.slot.name
        error = end.error or UpstreamError(f"model {name}: unknown failure")
        if end.upstream_failed and await self.scheduler.report_failure(name, str(error)):
            error = ModelUnavailableError(
                f"the server of model {name} died while answering ({error}); "
                "it is marked failed and the next request restarts it"
            )
        return error


def _monotonic() -> float:
    """This module's clock, for the request records (a virtual clock replaces ``time``)."""
    return time.monotonic()


def _upstream_reason(status: int, content: bytes) -> str | None:
    """The message of a server's error answer (OpenAI's ``error.message``, or its text)."""
    if status < 400:
        return None
    try:
        payload = json.loads(content[:65536])
    except ValueError:
        return content[:300].decode("utf-8", "replace").strip() or f"HTTP {status}"
    error = payload.get("error") if isinstance(payload, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if message is None and isinstance(payload, dict):
        message = payload.get("message") or payload.get("detail") or error
    return str(message) if message else f"HTTP {status}"


def _renamed(body: bytes, model: str) -> bytes:
    """The body with ``model`` replaced: a remote server may know the model by another name."""
    payload = json.loads(body)
    payload["model"] = model
    return json.dumps(payload).encode()


def _unseeded_if_sampled(body: bytes) -> bytes:
    """The body without ``seed`` when it samples (temperature > 0); else as it came.

    For a backend that does not take seeds (:attr:`ProcessBackend.seeds_sampling`): vLLM's CPU
    build (0.32) kills its engine when a seeded sampled request is in a step that discards its
    token (a chunked prefill; :data:`runtime.vllm.CHUNKED_PREFILL_FLAG`), and every request in
    flight gets a 500. Seen in ``make eval`` (2026-12-03) with 16 requests at once; the same bug
    was fixed in a vLLM plugin (RBLN-SW/vllm-rbln#1025). The servers the gateway starts prefill
    whole and keep seeds, unless their extra arguments chunk. A dropped seed's request is
    sampled unseeded: not reproducible, but answered. A seed with greedy decoding makes no
    generator, so it stays.
    """
    try:
        payload = json.loads(body)
    except ValueError:
        return body  # the server says what is wrong with it
    if not isinstance(payload, dict) or payload.get("seed") is None:
        return body
    temperature = payload.get("temperature", 1.0)  # the OpenAI default samples
    if isinstance(temperature, int | float) and temperature == 0:
        return body
    del payload["seed"]
    return json.dumps(payload).encode()


@functools.cache
def _tls() -> ssl.SSLContext:
    """The TLS context httpx makes by default (certifi's CAs), built once a process.

    Loading the CAs costs 13 ms, which every gateway built in a process paid (tests, the
    state machine's thousands of gateways).
    """
    return httpx.create_ssl_context(trust_env=False)


_PROMPT_TOKENS = re.compile(rb'"prompt_tokens"\s*:\s*(\d+)')
_COMPLETION_TOKENS = re.compile(rb'"completion_tokens"\s*:\s*(\d+)')


def usage_of(content: bytes) -> tuple[int, int] | None:
    """(prompt, completion) tokens of an OpenAI-style answer's ``usage``, or None.

    The last of each in ``content`` (usage follows the choices; the text of an answer is
    JSON-escaped, so a quote in it never opens a key).
    """
    prompt = _PROMPT_TOKENS.findall(content)
    completion = _COMPLETION_TOKENS.findall(content)
    if not prompt or not completion:
        return None
    return int(prompt[-1]), int(completion[-1])


def _outcome(status: int) -> str:
    if status < 400:
        return "ok"
    return "upstream_client_error" if status < 500 else "upstream_server_error"
