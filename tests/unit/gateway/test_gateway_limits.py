"""What a client may cost the gateway, and who may drive it (issue 41, findings 4 and 6).

- a body over ``http.max_body`` gets 413 before it is read (its Content-Length), or as soon as
  a chunked one passes the limit, on every route;
- a request head (or body) that does not arrive within its timeout closes the connection;
- a flood of silent connections against a gateway that may open only 256 files leaves
  ``/health`` answering (the connection cap closes the oldest waiting ones);
- a model takes at most ``max_in_flight`` requests at once; the rest queue (then 429);
- a web page on another site (its Origin), or a foreign Host without a token, is refused.

The gateway is served here as the CLI serves it (:func:`runtime.gateway.server.serve_config`),
in the test's loop, or as the CLI process itself for the open-files test. Timeouts are 1 s
and the tests wait up to 10 s for their effect, so a busy machine does not fail them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from starlette.types import Receive, Scope, Send

from runtime.gateway.auth import OriginGuard, trusted_hosts
from runtime.gateway.config import ConfigError, SchedulingConfig, max_in_flight, parse_config
from runtime.gateway.errors import QueueFullError
from runtime.gateway.limits import connection_cap
from runtime.gateway.server import serve_config
from runtime.gateway.service import GatewayService, prepare
from runtime.process import ManagedProcess
from runtime.settings import Device
from tests.support import ROOT
from tests.support.gateway import TOKEN, InLoopServer, fake_model
from tests.support.network import allowed_port
from tests.unit.gateway.virtual_gateway import MB, ModelSpec, chat_body, virtual_gateway

WAIT_S = 10.0
"""How long a test waits for what a 1 s limit should bring about."""
IDLE = {"name": "a", "backend": "command", "command": ["false"], "footprint": 100 * MB}
"""A model that is never started here (its command would fail): unloading it changes nothing."""


def config_file(
    tmp_path: Path,
    *,
    http: dict[str, Any] | None = None,
    models: list[dict[str, Any]] | None = None,
    token: bool = False,
    **scheduling: Any,
) -> Path:
    config: dict[str, Any] = {
        "device": "cpu",
        "state_dir": str(tmp_path / "state"),
        "budget": {"bytes": 1000 * MB},
        "scheduling": {"watch_interval_s": 0.2, **scheduling},
        "models": models or [IDLE],
    }
    if http is not None:
        config["http"] = http
    if token:
        (tmp_path / "token").write_text(f"{TOKEN}\n")
        config["auth"] = {"token_file": "token"}
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@dataclass
class Served:
    service: GatewayService
    server: InLoopServer
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.asynccontextmanager
async def served(config: Path) -> AsyncIterator[Served]:
    """The gateway of ``config`` served in this loop, with the settings the CLI serves it."""
    service = GatewayService(prepare(config), port_for=allowed_port)
    port = allowed_port()
    server = InLoopServer(
        serve_config(service, "127.0.0.1", port, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "the gateway did not start"
        await asyncio.sleep(0.01)
    try:
        yield Served(service, server, port)
    finally:
        server.should_exit = True
        await serving


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def error(self) -> dict[str, Any]:
        payload: dict[str, Any] = json.loads(self.body)["error"]
        return payload


def parse(raw: bytes) -> Reply:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Reply(int(lines[0].split()[1]), headers, body)


@contextlib.asynccontextmanager
async def connection(port: int) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def until_closed(reader: asyncio.StreamReader) -> bytes:
    """What the server sends until it closes the connection (at most :data:`WAIT_S`)."""
    return await asyncio.wait_for(reader.read(), WAIT_S)


def head(method: str, path: str, port: int, *extra: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *extra, "", ""]
    return "\r\n".join(lines).encode()


# -- finding 4: the size of a body -----------------------------------------------------------


async def test_a_declared_body_over_the_limit_gets_413_before_it_is_sent(tmp_path: Path) -> None:
    """The red team's 100 MB body took 300 MB of memory; it is now refused from its head."""
    config = config_file(tmp_path, http={"max_body": "64KiB"})
    async with served(config) as gw:
        for method, path in [
            ("POST", "/v1/chat/completions"),
            ("POST", "/ui/login"),
            ("POST", "/models/a/unload"),
            ("GET", "/health"),
        ]:
            async with connection(gw.port) as (reader, writer):
                writer.write(
                    head(
                        method,
                        path,
                        gw.port,
                        "Content-Type: text/plain",
                        "Content-Length: 100000000",
                    )
                )
                await writer.drain()
                reply = parse(await until_closed(reader))  # no byte of the body was sent
            assert reply.status == 413, (path, reply)
            error = reply.error()
            assert error["code"] == 413 and error["type"] == "request_too_large"
            assert "64.00 KiB" in error["message"] and "http.max_body" in error["message"]
        assert gw.service.metrics.refusals["body_too_large"] == 4
        assert gw.service.slots["a"].in_flight == 0


async def test_a_chunked_body_is_refused_once_it_passes_the_limit(tmp_path: Path) -> None:
    config = config_file(tmp_path, http={"max_body": "64KiB"})
    piece = b"x" * 8192
    async with served(config) as gw:
        async with connection(gw.port) as (reader, writer):
            writer.write(
                head("POST", "/v1/chat/completions", gw.port, "Transfer-Encoding: chunked")
            )
            for _ in range(9):  # 72 KiB, and never the last chunk: only counting can end it
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
            reply = parse(await until_closed(reader))
        assert reply.status == 413 and reply.error()["type"] == "request_too_large"
        assert reply.headers["connection"] == "close"
        # under the limit, chunked or not, a body is read and routed
        async with httpx.AsyncClient(trust_env=False) as http:

            async def chunks() -> AsyncIterator[bytes]:
                yield b'{"model": "nope", "pad": "'
                for _ in range(6):
                    yield piece
                yield b'"}'

            for content in (chunks(), b'{"model": "nope", "pad": "' + piece * 7 + b'"}'):
                routed = await http.post(f"{gw.url}/v1/chat/completions", content=content)
                assert routed.status_code == 404, routed.text  # no model "nope": it was read


# -- finding 4: slow clients ----------------------------------------------------------------


async def test_a_request_head_that_trickles_in_is_cut_off(tmp_path: Path) -> None:
    """300 slow-header connections stayed open for 60 s; a head now has 1 s (as configured)."""
    config = config_file(tmp_path, http={"header_timeout_s": 1, "body_timeout_s": 1})
    async with served(config) as gw:
        async with connection(gw.port) as (silent, _), connection(gw.port) as (reader, writer):
            writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")

            async def trickle() -> None:
                for _ in range(int(WAIT_S * 10)):
                    await asyncio.sleep(0.1)
                    writer.write(b"X-Slow: 1\r\n")  # a header line at a time, never the end

            trickling = asyncio.create_task(trickle())
            try:
                reply = parse(await until_closed(reader))
            finally:
                trickling.cancel()
                with contextlib.suppress(asyncio.CancelledError, OSError):
                    await trickling
            assert reply.status == 408 and reply.error()["type"] == "request_timeout"
            assert await until_closed(silent) == b""  # a silent connection: closed, no answer
        assert gw.service.metrics.refusals["head_timeout"] == 2


async def test_a_body_that_stops_coming_is_cut_off(tmp_path: Path) -> None:
    config = config_file(tmp_path, http={"header_timeout_s": 1, "body_timeout_s": 1})
    async with served(config) as gw:
        async with connection(gw.port) as (reader, writer):
            writer.write(head("POST", "/v1/chat/completions", gw.port, "Content-Length: 100"))
            writer.write(b'{"model": ')  # and nothing more
            reply = parse(await until_closed(reader))
        assert reply.status == 408
        assert gw.service.metrics.refusals["body_timeout"] == 1


async def test_requests_that_take_longer_than_the_timeouts_are_not_cut(
    tmp_path: Path, tag: str
) -> None:
    """The timeouts bound a request's arrival only: an answer streamed for longer than them,
    and a keep-alive connection idle longer than them, are served."""
    model = fake_model("m", tag, tokens=24, token_rate=10)  # 2.4 s of streamed answer
    config = config_file(
        tmp_path, http={"header_timeout_s": 1, "body_timeout_s": 1}, models=[model]
    )
    async with served(config) as gw, httpx.AsyncClient(trust_env=False, timeout=60) as http:
        chat = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        async with http.stream("POST", f"{gw.url}/v1/chat/completions", json=chat) as reply:
            assert reply.status_code == 200
            text = "".join([chunk async for chunk in reply.aiter_text()])
        assert "[DONE]" in text
        await asyncio.sleep(1.5)  # idle on the kept-alive connection, past the head's 1 s
        again = await http.get(f"{gw.url}/health")
        assert again.status_code == 200 and again.extensions["http_version"] == b"HTTP/1.1"
        assert not gw.service.metrics.refusals


# -- finding 4: open files ------------------------------------------------------------------


@contextlib.contextmanager
def gateway_with_few_files(
    config: Path, log: Path, files: int
) -> Iterator[tuple[ManagedProcess, int]]:
    """``python -m runtime.gateway.cli`` that may open ``files`` files (soft and hard limit),
    and its port."""
    port = allowed_port()
    limit = (
        "import os, resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({files}, {files})); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    command = [sys.executable, "-c", limit, sys.executable, "-m", "runtime.gateway.cli"]
    process = ManagedProcess(
        "gateway",
        [*command, "--config", str(config), "--port", str(port)],
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=log,
        env=dict(os.environ),
        start_timeout_s=60,
        cwd=ROOT,
    )
    with process:
        yield process, port


def test_a_flood_of_silent_connections_leaves_health_answering(tmp_path: Path) -> None:
    """With 256 files, 300 connections that never send a head starved /health ("Too many open
    files"); now the gateway keeps 64 connections at most and closes the oldest waiting one."""
    config = config_file(tmp_path, http={"header_timeout_s": 60})  # the cap alone must do
    with gateway_with_few_files(config, tmp_path / "gateway.log", 256) as (gateway, port):
        assert gateway.pid is not None
        flood: list[socket.socket] = []
        try:
            for _ in range(300):
                flood.append(socket.create_connection(("127.0.0.1", port), timeout=WAIT_S))
            health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=WAIT_S, trust_env=False)
            assert health.status_code == 200
            held = len(os.listdir(f"/proc/{gateway.pid}/fd"))
            assert held < 64 + 128, f"the gateway holds {held} descriptors"
        finally:
            for sock in flood:
                sock.close()
    assert "connections_dropped" in (tmp_path / "gateway.log").read_text()


async def test_when_every_connection_is_busy_a_new_one_gets_503(tmp_path: Path) -> None:
    """The cap closes only connections without a request in progress: with 16 requests
    waiting on a hung server, a 17th connection is answered 503 and closed."""

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    upstream_port = allowed_port()
    upstream = await asyncio.start_server(hang, "127.0.0.1", upstream_port)
    remote = {"name": "r", "backend": "remote", "url": f"http://127.0.0.1:{upstream_port}/v1"}
    config = config_file(tmp_path, models=[remote], http={"max_connections": 16})
    chat = json.dumps({"model": "r", "messages": []}).encode()
    try:
        async with served(config) as gw, contextlib.AsyncExitStack() as stack:
            for _ in range(16):
                _, writer = await stack.enter_async_context(connection(gw.port))
                length = f"Content-Length: {len(chat)}"
                writer.write(head("POST", "/v1/chat/completions", gw.port, length) + chat)
            slot = gw.service.slots["r"]
            for _ in range(int(WAIT_S * 20)):
                if slot.in_flight == 16:
                    break
                await asyncio.sleep(0.05)
            assert slot.in_flight == 16
            async with connection(gw.port) as (reader, _):
                reply = parse(await until_closed(reader))
            assert reply.status == 503 and reply.headers["retry-after"] == "1"
            assert reply.error()["type"] == "too_many_connections"
            assert slot.in_flight == 16  # none of the busy ones was cut
    finally:
        upstream.close()
        await upstream.wait_closed()


def test_the_connection_cap_follows_the_open_files_limit() -> None:
    assert connection_cap(1024, 65536) == 1024
    assert connection_cap(1024, 256) == 64
    assert connection_cap(1024, 100) == 16


# -- finding 4: requests in flight per model ------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "queued", "refused"),
    [
        ("grouped", 4, 3),  # 3 go straight in, 4 queue, 3 find the queue full
        ("fifo", 1, 6),  # every request queues: 4 do, 6 are refused; then 3 of 4 run
    ],
)
def test_a_model_takes_at_most_max_in_flight_requests_and_queues_the_rest(
    policy: str, queued: int, refused: int
) -> None:
    """300 requests were admitted to a hung backend; now 3 run at once and the rest queue."""
    scheduling = {"max_in_flight": 3, "max_queue": 4, "policy": policy, "request_idle_s": 1000}
    with virtual_gateway(
        [ModelSpec("a", 100 * MB)], 1000 * MB, device=Device.CPU, scheduling=scheduling
    ) as gw:
        service = gw.service
        slot = service.slots["a"]
        seen: list[tuple[int, int]] = []

        async def watch() -> None:
            while True:
                seen.append((slot.in_flight, len(slot.live_waiters())))
                await asyncio.sleep(0.05)

        async def scenario() -> list[Any]:
            await service.load("a")
            watching = asyncio.create_task(watch())
            body = chat_body("a", service_s=60)
            calls = [
                asyncio.create_task(
                    service.forward("a", "/v1/chat/completions", body, {}, stream=False)
                )
                for _ in range(10)
            ]
            try:
                await asyncio.sleep(1)
                return [(slot.in_flight, len(slot.live_waiters()))]
            finally:
                results = await asyncio.gather(*calls, return_exceptions=True)
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
                calls_results.extend(results)

        calls_results: list[Any] = []
        assert gw.loop.run(scenario()) == [(3, queued)]
        full = [r for r in calls_results if isinstance(r, QueueFullError)]
        answered = [r for r in calls_results if not isinstance(r, BaseException)]
        assert len(full) == refused and all(r.retry_after_s for r in full)
        assert [r.status_code for r in answered] == [200] * (10 - refused)
        assert max(in_flight for in_flight, _ in seen) == 3
        assert slot.in_flight == 0 and not slot.live_waiters()


async def test_a_hung_remote_model_takes_at_most_max_in_flight(tmp_path: Path) -> None:
    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # reads the requests, answers none, until the gateway hangs up
        writer.close()

    upstream_port = allowed_port()
    upstream = await asyncio.start_server(hang, "127.0.0.1", upstream_port)
    remote = {
        "name": "r",
        "backend": "remote",
        "url": f"http://127.0.0.1:{upstream_port}/v1",
        "max_in_flight": 2,
    }
    config = config_file(tmp_path, models=[remote], max_queue=2)
    limits = httpx.Limits(max_connections=20)
    try:
        async with (
            served(config) as gw,
            httpx.AsyncClient(trust_env=False, timeout=60, limits=limits) as http,
        ):
            chat = {"model": "r", "messages": [{"role": "user", "content": "hi"}]}
            calls = [
                asyncio.create_task(http.post(f"{gw.url}/v1/chat/completions", json=chat))
                for _ in range(5)
            ]
            slot = gw.service.slots["r"]
            for _ in range(int(WAIT_S * 20)):
                if slot.in_flight + len(slot.live_waiters()) == 4 and any(c.done() for c in calls):
                    break
                await asyncio.sleep(0.05)
            assert (slot.in_flight, len(slot.live_waiters())) == (2, 2)
            (full,) = [c.result() for c in calls if c.done()]
            assert full.status_code == 429 and int(full.headers["retry-after"]) >= 1
            for call in calls:
                call.cancel()
            await asyncio.gather(*calls, return_exceptions=True)
            for _ in range(int(WAIT_S * 20)):
                if not slot.in_flight and not slot.live_waiters():
                    break
                await asyncio.sleep(0.05)
            assert slot.in_flight == 0 and not slot.live_waiters()
    finally:
        upstream.close()
        await upstream.wait_closed()


def test_max_in_flight_comes_from_the_model_the_default_or_vllms_batch() -> None:
    scheduling = SchedulingConfig()
    vllm = {"name": "v", "backend": "vllm", "model": "v", "footprint": "1GiB"}
    config = parse_config(
        {
            "device": "cpu",
            "budget": {"bytes": "4GiB"},
            "scheduling": {"max_in_flight": 32},
            "models": [
                vllm,
                {**vllm, "name": "own", "max_in_flight": 5, "extra_args": ["--max-num-seqs", "99"]},
                {**vllm, "name": "batch", "extra_args": ["--max-num-seqs", "256"]},
                {**vllm, "name": "small", "extra_args": ["--max_num_seqs=8"]},
            ],
        },
        origin="gw.yaml",
    )
    caps = {m.name: max_in_flight(m, config.scheduling) for m in config.models}
    assert caps == {"v": 32, "own": 5, "batch": 256, "small": 32}
    assert scheduling.max_in_flight == 64


@pytest.mark.parametrize(
    ("section", "value", "message"),
    [
        ("http", {"max_body": 10}, r"http\.max_body: Value error, must be at least 1024 bytes"),
        ("http", {"max_body": "lots"}, r"http\.max_body: .*not a size"),
        ("http", {"header_timeout_s": 0}, r"http\.header_timeout_s: .*greater than 0"),
        ("http", {"max_connections": 4}, r"http\.max_connections: .*greater than or equal to 16"),
        ("http", {"allowed_hosts": ["gpu-box:8100"]}, r"allowed_hosts\[0\]: .*not a host name"),
        ("scheduling", {"max_in_flight": 0}, r"scheduling\.max_in_flight: .*greater than"),
    ],
)
def test_the_limits_are_validated_naming_the_key(
    section: str, value: dict[str, Any], message: str
) -> None:
    raw = {"device": "cpu", "budget": {"bytes": "4GiB"}, section: value, "models": [IDLE]}
    with pytest.raises(ConfigError, match=message):
        parse_config(raw, origin="gw.yaml")


# -- finding 6: requests from other sites ---------------------------------------------------


async def test_a_page_on_another_site_cannot_unload_a_model(tmp_path: Path) -> None:
    """The red team's text/plain POST from http://evil.example unloaded a model."""
    config = config_file(tmp_path)
    async with served(config) as gw, httpx.AsyncClient(trust_env=False) as http:
        unload = f"{gw.url}/models/a/unload"
        own = f"http://127.0.0.1:{gw.port}"
        plain = {"Content-Type": "text/plain"}
        refused = [
            {"Origin": "http://evil.example", **plain},
            {"Origin": "http://evil.example", "Host": f"evil.example:{gw.port}", **plain},
            {"Host": f"evil.example:{gw.port}"},  # DNS rebinding: the page's name, our address
            {"Origin": f"http://127.0.0.1:{gw.port + 1}"},  # another server on this machine
            {"Origin": "null"},
        ]
        for headers in refused:
            reply = await http.post(unload, headers=headers, content=b"x")
            assert reply.status_code == 403, (headers, reply.text)
            assert reply.json()["error"]["type"] == "permission_error"
        # without a token a foreign Host or Origin is refused on reading routes too
        for path in ("/running", "/ui/status", "/health"):
            for headers in refused[1:3]:
                reply = await http.get(f"{gw.url}{path}", headers=headers)
                assert reply.status_code == 403, (path, headers)
        accepted = [
            {},  # curl, the OpenAI client: no Origin
            {"Origin": own},  # the status page
            {"Origin": f"http://localhost:{gw.port}", "Host": f"localhost:{gw.port}"},
            {"Origin": f"http://localhost:{gw.port}"},  # another name of this gateway
            {"Host": f"[::1]:{gw.port}"},
        ]
        for headers in accepted:
            reply = await http.post(unload, headers=headers)
            assert reply.status_code == 200, (headers, reply.text)
        assert gw.service.metrics.refusals["foreign_origin"] >= 3
        assert gw.service.metrics.refusals["foreign_host"] >= 2


async def test_allowed_hosts_and_a_token(tmp_path: Path) -> None:
    config = config_file(tmp_path, token=True, http={"allowed_hosts": ["gpu-box.lan"]})
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    async with served(config) as gw, httpx.AsyncClient(trust_env=False) as http:
        unload = f"{gw.url}/models/a/unload"
        # with a token the Host is not checked (a rebinding page cannot send the token)...
        reply = await http.get(f"{gw.url}/running", headers={"Host": "gpu-box", **bearer})
        assert reply.status_code == 200
        # ... but a foreign page still may not change anything, token or cookie
        for origin in ("http://evil.example", "https://gpu-box.lan.evil.example"):
            reply = await http.post(unload, headers={"Origin": origin, **bearer})
            assert reply.status_code == 403, origin
        reply = await http.get(f"{gw.url}/running", headers={"Origin": "http://evil.example"})
        assert reply.status_code == 401  # a read with a foreign Origin: the token decides
        for origin in ("https://gpu-box.lan", "http://gpu-box.lan:8443"):
            reply = await http.post(unload, headers={"Origin": origin, **bearer})
            assert reply.status_code == 200, origin
        reply = await http.post(
            unload, headers={"Origin": "http://gw.lan:9", "Host": "gw.lan:9", **bearer}
        )
        assert reply.status_code == 200  # the gateway's own page under another name


def test_the_gateway_answers_to_its_bound_name_and_loopback() -> None:
    hosts = trusted_hosts(["gpu-box.lan"], ["proxy.example"])
    assert hosts == {"gpu-box.lan", "proxy.example", "localhost", "127.0.0.1", "::1"}
    assert trusted_hosts(["0.0.0.0", "::"]) == {"localhost", "127.0.0.1", "::1"}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        del scope, receive, send

    guard = OriginGuard(app, hosts=trusted_hosts(["127.0.0.1"]), everything=True)

    def scope(*headers: tuple[bytes, bytes], method: str = "POST") -> dict[str, Any]:
        return {"type": "http", "method": method, "headers": list(headers)}

    assert guard.problem(scope((b"host", b"LOCALHOST:80"))) is None
    assert guard.problem(scope((b"host", b"127.0.0.1"))) is None
    assert guard.problem(scope()) is None  # HTTP/1.0 without a Host
    for bad in (b"evil.example", b"127.0.0.1.nip.io:8100", b"[::1", b"::1", b"host:port"):
        problem = guard.problem(scope((b"host", bad)))
        assert problem is not None and problem[0] == "foreign_host", bad
