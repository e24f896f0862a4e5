"""The gateway's HTTP face: OpenAI-compatible routes and management routes (starlette).

- ``POST /v1/chat/completions``, ``POST /v1/completions``: routed by the body's ``model``; the
  body goes upstream unchanged and the answer comes back as it arrives (``stream: true`` too).
- ``GET /v1/models``: every configured model.
- ``GET /health``, ``GET /running`` (state, bytes, in-flight and queued requests, last use),
  ``POST /models/{name}/load``, ``POST /models/{name}/unload``, ``GET /models/{name}/progress``
  (whether its requests progress: for clients watching their calls' liveness), ``GET /metrics``
  (Prometheus).
- ``GET /upstream/{name}/metrics``: the model's own server's ``/metrics`` (vLLM's KV-cache use,
  running and waiting requests, token counters), relayed while it runs; a scrape never starts
  it (:func:`backend_metrics`).
- ``GET /ui``: the live status page (:mod:`runtime.gateway.ui`), ``GET /ui/status`` its data,
  ``/ui/login`` its sign-in form when a token is configured.
- ``GET /logs``: a record of every request (``?follow=0``: those kept, as JSON lines; else
  they stream as requests end; :mod:`runtime.gateway.requestlog`).

Errors are OpenAI-style JSON objects; a full queue answers 429 with ``Retry-After``. With a
token configured every route requires it (:mod:`runtime.gateway.auth`). Before that, every
request passes the body limit (413; :mod:`runtime.gateway.limits`) and the Origin and Host
checks (403; :class:`runtime.gateway.auth.OriginGuard`). :func:`serve_config` is uvicorn's
config for the app, with the limits on connections: the one place both the standalone and the
embedded gateway get it from.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from runtime.gateway.auth import LOGIN_PATH, BearerAuth, OriginGuard, trusted_hosts
from runtime.gateway.errors import (
    BadRequestError,
    DeadlineExceededError,
    GatewayError,
    ModelUnavailableError,
    UpstreamError,
)
from runtime.gateway.limits import (
    BodyLimit,
    ConnectionGuard,
    GatewayServerConfig,
    HttpLimits,
    connection_cap,
    open_files_limit,
)
from runtime.gateway.policies import ModelState
from runtime.gateway.proxy import error_body
from runtime.gateway.requestlog import Caller
from runtime.gateway.service import GatewayService
from runtime.gateway.ui import StatusPage

PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"
UPSTREAM_METRICS_TIMEOUT_S = 5.0
"""How long ``GET /upstream/{name}/metrics`` waits for the model's server."""
UPSTREAM_METRICS_MAX_BYTES = 16 * 1024 * 1024
"""The most of a server's ``/metrics`` page relayed (vLLM's is some hundred KiB)."""
_SCRAPED_STATES = frozenset({ModelState.READY, ModelState.SLEEPING})
"""States in which a model's server runs and answers ``/metrics`` (vLLM does asleep too)."""


class NotManagedError(GatewayError):
    """The model is a remote backend: its server is not the gateway's to relay."""

    status = 404
    kind = "not_found"


def error_response(error: GatewayError) -> JSONResponse:
    """The JSON error answer for ``error`` (with ``Retry-After`` when it has one)."""
    headers = {}
    if error.retry_after_s is not None:
        headers["Retry-After"] = str(error.retry_after_s)
    return JSONResponse(error_body(error), status_code=error.status, headers=headers)


def _routing(body: bytes) -> tuple[str, bool]:
    """The ``model`` and ``stream`` fields of a request body; BadRequestError otherwise."""
    try:
        payload = json.loads(body)
    except RecursionError:
        # Nesting deeper than Python's recursion limit: json raises RecursionError, which
        # was a 500 (found by tests/unit/gateway/test_gateway_fuzz.py).
        raise BadRequestError("the request body is JSON nested too deeply to read") from None
    except ValueError as err:
        # JSONDecodeError and UnicodeDecodeError, and also an integer longer than Python
        # converts (4300 digits), a plain ValueError that was a 500 (found by the fuzzing).
        if isinstance(err, json.JSONDecodeError | UnicodeDecodeError):
            raise BadRequestError("the request body is not JSON") from None
        raise BadRequestError(
            f"the request body is not JSON the gateway can read ({err})"
        ) from None
    if not isinstance(payload, dict):
        raise BadRequestError("the request body must be a JSON object")
    model = payload.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequestError("the request has no `model`: the gateway routes by it")
    return model, bool(payload.get("stream"))


async def _no_route(request: Request, exc: Exception) -> Response:
    """An unknown route or method answers an OpenAI-style error too, naming the path."""
    http = exc if isinstance(exc, HTTPException) else HTTPException(500)
    message = f"no route for {request.method} {request.url.path!r} on this gateway"
    body = {
        "error": {"message": message, "type": "invalid_request_error", "code": http.status_code}
    }
    return JSONResponse(body, status_code=http.status_code, headers=http.headers)


async def backend_metrics(
    service: GatewayService, name: str, *, timeout_s: float = UPSTREAM_METRICS_TIMEOUT_S
) -> tuple[bytes, str]:
    """The ``/metrics`` page of model ``name``'s server, and its content type.

    Read from the server's root (``/metrics`` beside ``/v1``), with the server's own key when
    it has one (vLLM leaves ``/metrics`` unguarded, but a server started with ``--api-key``
    may not). The model is not started, woken nor marked used for it.

    Raises:
        BadRequestError, UnknownModelError: no model of that name (400, 404).
        NotManagedError: a remote model (404): scrape its server where it runs.
        ModelUnavailableError: its server is not running now (503).
        DeadlineExceededError: the server did not answer within ``timeout_s`` (504).
        UpstreamError: the server failed or answered another status than 200 (502).
    """
    slot = service.scheduler.slot(name)
    backend = slot.backend
    if not slot.managed:
        raise NotManagedError(
            f"model {name!r} is a remote backend: the gateway relays the metrics of the "
            "servers it runs only; scrape that server where it runs"
        )
    state = slot.state
    if state not in _SCRAPED_STATES or not backend.api_base:
        raise ModelUnavailableError(
            f"model {name!r} is {state}: its server is not running, so it has no metrics now "
            f"(a scrape does not start it; POST /models/{name}/load does)"
        )
    headers = {"Authorization": f"Bearer {backend.api_key}"} if backend.api_key else {}
    url = backend.api_base.removesuffix("/v1") + "/metrics"
    body = bytearray()
    try:
        async with (
            asyncio.timeout(timeout_s),  # the whole scrape, not each read
            service.client.stream("GET", url, headers=headers, timeout=timeout_s) as reply,
        ):
            if reply.status_code != 200:
                raise UpstreamError(
                    f"the server of model {name!r} answered {reply.status_code} on /metrics"
                )
            async for chunk in reply.aiter_bytes():
                body += chunk
                if len(body) > UPSTREAM_METRICS_MAX_BYTES:
                    raise UpstreamError(
                        f"the server of model {name!r} sent a /metrics page over "
                        f"{UPSTREAM_METRICS_MAX_BYTES} bytes"
                    )
            kind = reply.headers.get("content-type", PROMETHEUS_TYPE)
    except (httpx.TimeoutException, TimeoutError):
        raise DeadlineExceededError(
            f"the server of model {name!r} did not answer /metrics within {timeout_s:g} s"
        ) from None
    except httpx.HTTPError as err:
        raise UpstreamError(
            f"the server of model {name!r} could not be scraped ({type(err).__name__}: {err})"
        ) from None
    return bytes(body), kind


async def _client_left(request: Request) -> None:
    """Returns when the client disconnects (its body was read: nothing else can arrive)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class GatewayRoutes:
    """The route handlers, over one :class:`GatewayService`."""

    def __init__(self, service: GatewayService) -> None:
        self.service = service

    async def completions(self, request: Request) -> Response:
        """Route a completion request by its ``model`` and relay the answer.

        A client that leaves before its answer starts (queued, or waiting for a whole
        answer) cancels the request: its queue place or its upstream request is given up,
        so the model does not keep generating for nobody.
        """
        body = await request.body()
        try:
            model, stream = _routing(body)
        except GatewayError as err:
            return error_response(err)
        caller = Caller.of(request.headers, request.client.host if request.client else None)
        forwarding = asyncio.create_task(
            self.service.forward(
                model, request.url.path, body, request.headers, stream=stream, caller=caller
            )
        )
        leaving = asyncio.create_task(_client_left(request))
        await asyncio.wait({forwarding, leaving}, return_when=asyncio.FIRST_COMPLETED)
        if not forwarding.done():
            forwarding.cancel()
            with contextlib.suppress(asyncio.CancelledError, GatewayError):
                await forwarding  # its record counts it: client_disconnected
            return Response(status_code=499)  # nobody reads it
        leaving.cancel()
        try:
            return forwarding.result()
        except GatewayError as err:
            return error_response(err)

    async def models(self, _: Request) -> Response:
        """Every configured model, OpenAI-style."""
        created = int(time.time())
        data = [
            {"id": name, "object": "model", "created": created, "owned_by": "edgeswarm"}
            for name in self.service.model_names()
        ]
        return JSONResponse({"object": "list", "data": data})

    async def health(self, _: Request) -> Response:
        """The gateway answers (models may still be unloaded)."""
        return JSONResponse({"status": "ok", "models": len(self.service.slots)})

    async def running(self, _: Request) -> Response:
        """Every model's state, bytes, in-flight and queued requests and last use."""
        return JSONResponse(self.service.scheduler.running())

    async def load(self, request: Request) -> Response:
        """Make a model resident (queued like a request); 200 once it is."""
        name = request.path_params["name"]
        caller = Caller.of(request.headers, request.client.host if request.client else None)
        try:
            seconds = await self.service.load(name, caller)
        except GatewayError as err:
            return error_response(err)
        slot = self.service.slots[name]
        state = str(slot.state) if slot.managed else "remote"
        return JSONResponse({"model": name, "state": state, "seconds": round(seconds, 3)})

    async def progress(self, request: Request) -> Response:
        """How a model's requests progress (liveness for clients that stream)."""
        try:
            body = self.service.scheduler.progress_of(request.path_params["name"])
        except GatewayError as err:
            return error_response(err)
        return JSONResponse(body)

    async def unload(self, request: Request) -> Response:
        """Unload a model now: drain, then sleep or stop it."""
        name = request.path_params["name"]
        try:
            state: ModelState = await self.service.scheduler.unload(name)
        except GatewayError as err:
            return error_response(err)
        return JSONResponse({"model": name, "state": str(state)})

    async def metrics(self, _: Request) -> Response:
        """Counters and gauges in Prometheus text."""
        text = self.service.metrics.render(self.service.scheduler.gauges())
        return PlainTextResponse(text, media_type=PROMETHEUS_TYPE)

    async def upstream_metrics(self, request: Request) -> Response:
        """A model's own server's ``/metrics``, relayed as it came (see :func:`backend_metrics`)."""
        try:
            body, kind = await backend_metrics(self.service, request.path_params["name"])
        except GatewayError as err:
            return error_response(err)
        return Response(body, headers={"Content-Type": kind})


def build_app(service: GatewayService, *, bound_host: str = "127.0.0.1") -> Starlette:
    """The ASGI app serving ``service``; its lifespan starts and stops the gateway.

    ``bound_host`` is the address it listens on: a name clients may use in ``Host``.
    """
    routes = GatewayRoutes(service)
    ui = StatusPage(service)
    token = service.setup.token
    http = service.setup.config.http
    refused = service.metrics.refused
    middleware = [
        Middleware(BodyLimit, max_bytes=http.max_body, refused=refused),
        Middleware(
            OriginGuard,
            hosts=trusted_hosts([bound_host], http.allowed_hosts),
            allowed=frozenset(http.allowed_hosts),
            everything=token is None,
            refused=refused,
        ),
    ]
    if token is not None:
        middleware.append(Middleware(BearerAuth, token=token))

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.close()

    return Starlette(
        routes=[
            Route("/v1/chat/completions", routes.completions, methods=["POST"]),
            Route("/v1/completions", routes.completions, methods=["POST"]),
            Route("/v1/models", routes.models, methods=["GET"]),
            Route("/health", routes.health, methods=["GET"]),
            Route("/running", routes.running, methods=["GET"]),
            Route("/models/{name:path}/load", routes.load, methods=["POST"]),
            Route("/models/{name:path}/unload", routes.unload, methods=["POST"]),
            Route("/models/{name:path}/progress", routes.progress, methods=["GET"]),
            Route("/metrics", routes.metrics, methods=["GET"]),
            Route("/upstream/{name:path}/metrics", routes.upstream_metrics, methods=["GET"]),
            Route("/logs", service.request_log.endpoint, methods=["GET"]),
            Route("/ui", ui.index, methods=["GET"]),
            Route("/ui/status", ui.status, methods=["GET"]),
            Route(LOGIN_PATH, ui.login_form, methods=["GET"]),
            Route(LOGIN_PATH, ui.login, methods=["POST"]),
        ],
        middleware=middleware,
        exception_handlers={HTTPException: _no_route},
        lifespan=lifespan,
    )


def serve_config(
    service: GatewayService, host: str, port: int, **options: Any
) -> GatewayServerConfig:
    """The uvicorn config serving ``service`` on ``host``:``port`` within its ``http`` limits.

    ``options`` are more uvicorn settings (log level, graceful shutdown). The connection cap
    is ``http.max_connections``, lowered to what the process's open-files limit allows (the
    standalone gateway raises that limit first:
    :func:`runtime.gateway.limits.raise_open_files_limit`).
    """
    limits = HttpLimits.of(service.setup.config.http)
    guard = ConnectionGuard(
        limits,
        connection_cap(limits.max_connections, open_files_limit()),
        service.metrics.refused,
    )
    return GatewayServerConfig(
        build_app(service, bound_host=host), guard=guard, host=host, port=port, **options
    )
