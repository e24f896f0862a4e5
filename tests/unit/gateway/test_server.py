"""The gateway's HTTP face (:mod:`runtime.gateway.server`), its parts called directly.

How a request body is routed (by its ``model``, a 400 naming what is wrong otherwise), how an
error and an unknown route are answered (OpenAI-style, with ``Retry-After`` where one is due),
and :func:`backend_metrics`, which relays a model's own server's ``/metrics`` without ever
starting it (over a stub service and an ``httpx.MockTransport``). The routes served whole are
in the live, fuzzing, limits and metrics tests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import cast

import httpx
import pytest
from starlette.exceptions import HTTPException
from starlette.requests import Request

from runtime.gateway import server
from runtime.gateway.errors import (
    BadRequestError,
    DeadlineExceededError,
    GatewayError,
    ModelUnavailableError,
    QueueFullError,
    UnknownModelError,
    UpstreamError,
)
from runtime.gateway.policies import ModelState
from runtime.gateway.server import (
    NotManagedError,
    _no_route,
    _routing,
    backend_metrics,
    error_response,
)
from runtime.gateway.service import GatewayService

VLLM_PAGE = (
    "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
    "# TYPE vllm:num_requests_running gauge\n"
    'vllm:num_requests_running{model_name="a"} 3.0\n'
)


Handler = Callable[[httpx.Request], Coroutine[None, None, httpx.Response]]


def stub_service(
    handler: Handler,
    *,
    state: ModelState = ModelState.READY,
    managed: bool = True,
    api_key: str | None = "server-secret",
) -> GatewayService:
    """Just what :func:`backend_metrics` reads of a service: one model ``a`` and a client."""
    backend = SimpleNamespace(api_base="http://backend.invalid:9/v1", api_key=api_key)
    slot = SimpleNamespace(managed=managed, state=state, backend=backend)

    def find(name: str) -> SimpleNamespace:
        if name != "a":
            raise UnknownModelError(f"model {name!r} is not served here; known: a")
        return slot

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return cast(
        GatewayService, SimpleNamespace(scheduler=SimpleNamespace(slot=find), client=client)
    )


async def test_the_relay_reads_the_server_root_with_its_key() -> None:
    seen: list[httpx.Request] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        kind = "text/plain; version=0.0.4; charset=utf-8"
        return httpx.Response(200, text=VLLM_PAGE, headers={"Content-Type": kind})

    body, kind = await backend_metrics(stub_service(handler), "a")
    assert body.decode() == VLLM_PAGE and kind.startswith("text/plain; version=0.0.4")
    assert str(seen[0].url) == "http://backend.invalid:9/metrics"  # the root, not /v1
    assert seen[0].headers["authorization"] == "Bearer server-secret"
    await backend_metrics(stub_service(handler, api_key=None, state=ModelState.SLEEPING), "a")
    assert "authorization" not in seen[1].headers  # asleep, vLLM still serves /metrics


@pytest.mark.parametrize(
    "state", [ModelState.STOPPED, ModelState.STARTING, ModelState.STOPPING, ModelState.FAILED]
)
async def test_a_model_not_running_is_not_started_for_a_scrape(state: ModelState) -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"the server was called: {request.url}")

    with pytest.raises(ModelUnavailableError, match=f"is {state}.*does not start it") as err:
        await backend_metrics(stub_service(handler, state=state), "a")
    assert err.value.status == 503


async def test_unknown_remote_failing_slow_and_huge_backends_are_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def fine(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=VLLM_PAGE)

    async def broken(_: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="engine dead")

    async def slow(_: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, text=VLLM_PAGE)

    async def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    cases: list[tuple[GatewayService, str, type[GatewayError], int, str]] = [
        (stub_service(fine), "nope", UnknownModelError, 404, "not served here"),
        (stub_service(fine, managed=False), "a", NotManagedError, 404, "remote backend"),
        (stub_service(broken), "a", UpstreamError, 502, "answered 500"),
        (stub_service(refused), "a", UpstreamError, 502, "ConnectError"),
        (stub_service(slow), "a", DeadlineExceededError, 504, "within 0.2 s"),
    ]
    for service, name, error, status, message in cases:
        started = asyncio.get_running_loop().time()
        with pytest.raises(error, match=message) as raised:
            await backend_metrics(service, name, timeout_s=0.2)
        assert raised.value.status == status
        assert asyncio.get_running_loop().time() - started < 2  # the timeout, not the server
    monkeypatch.setattr(server, "UPSTREAM_METRICS_MAX_BYTES", 10)
    with pytest.raises(UpstreamError, match="over 10 bytes"):
        await backend_metrics(stub_service(fine), "a")


# -- routing a body, answering an error --------------------------------------------------------


def test_a_body_is_routed_by_its_model_and_asks_a_stream_or_not() -> None:
    assert _routing(b'{"model": "a", "stream": true, "messages": []}') == ("a", True)
    assert _routing(b'{"model": "org/m:q4"}') == ("org/m:q4", False)
    assert _routing(b'{"model": "a", "stream": 0}') == ("a", False)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "the request body is not JSON"),
        (b'{"model": "\xff"}', "the request body is not JSON"),  # not UTF-8
        (b'["model", "a"]', "must be a JSON object"),
        (b'{"messages": []}', "has no `model`"),
        (b'{"model": ""}', "has no `model`"),
        (b'{"model": 7}', "has no `model`"),
        (b'{"model": "a", "n": ' + b"7" * 4301 + b"}", "not JSON the gateway can read"),
        (b'{"model": "a", "m": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    ],
)
def test_a_body_that_cannot_be_routed_is_a_400_saying_why(body: bytes, message: str) -> None:
    with pytest.raises(BadRequestError, match=message) as err:
        _routing(body)
    assert err.value.status == 400


def test_an_error_is_answered_with_its_status_and_when_to_retry() -> None:
    full = error_response(QueueFullError("the queue is full", retry_after_s=5))
    assert full.status_code == 429 and full.headers["retry-after"] == "5"
    assert json.loads(bytes(full.body)) == {
        "error": {"message": "the queue is full", "type": "queue_full", "code": 429}
    }
    unknown = error_response(UnknownModelError("model 'x' is not served here"))
    assert unknown.status_code == 404 and "retry-after" not in unknown.headers


async def test_an_unknown_route_is_an_openai_error_naming_it() -> None:
    scope = {"type": "http", "method": "GET", "path": "/v1/chat/completions", "headers": []}
    refused = HTTPException(405, headers={"Allow": "POST"})
    reply = await _no_route(Request(scope), refused)
    assert reply.status_code == 405 and reply.headers["allow"] == "POST"
    assert json.loads(bytes(reply.body)) == {
        "error": {
            "message": "no route for GET '/v1/chat/completions' on this gateway",
            "type": "invalid_request_error",
            "code": 405,
        }
    }
