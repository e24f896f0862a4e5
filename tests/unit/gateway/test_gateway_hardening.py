"""Regression tests of the red-team pass over the gateway (issue 41): each failed before its fix.

Fake vLLM backends as real processes (:mod:`tests.support.gateway`), the gateway in the test's
event loop, so its sockets are this process's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from runtime.gateway.errors import ModelUnavailableError
from runtime.gateway.policies import ModelState
from tests.support.gateway import MB, Live, fake_model, live_gateway, write_config


def _sockets_to(port: int) -> int:
    """This process's TCP sockets connected to ``port`` (the gateway's upstream connections)."""
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if link.startswith("socket:["):
            mine.add(link[8:-1])
    count = 0
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(table, encoding="ascii") as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                remote_port = int(fields[2].rsplit(":", 1)[1], 16)
                count += remote_port == port and fields[9] in mine
    return count


async def _stalled_streams(live: Live, port: int, count: int) -> list[str]:
    """``count`` streamed requests whose server goes silent after two pieces: each error."""
    async with httpx.AsyncClient(trust_env=False) as direct:
        script = [{"content": "x" * 40, "stall_after": 2}] * count
        await direct.post(f"http://127.0.0.1:{port}/_fake/script", json=script)
    payload = {"model": "hang", "stream": True, "messages": [{"role": "user", "content": "hi"}]}

    async def one(client: httpx.AsyncClient) -> str:
        async with client.stream("POST", f"{live.url}/v1/chat/completions", json=payload) as r:
            async for line in r.aiter_lines():
                if line.startswith("data: ") and '"error"' in line:
                    return str(json.loads(line[6:])["error"]["message"])
        return ""

    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        return await asyncio.gather(*(one(client) for _ in range(count)))


async def test_requests_cut_as_stalled_leak_no_upstream_socket(tmp_path: Path, tag: str) -> None:
    """Finding 2: a cut request's upstream task was cancelled twice (by the cut, then by the
    handler's close), and a second cancel of an httpx request leaks its connection."""
    models = [fake_model("hang", tag)]
    # no health probes: their kept-alive connection comes and goes, and is not a request's
    config = write_config(tmp_path, models, 1000 * MB, request_idle_s=1.0, hung_after_s=None)
    async with live_gateway(config, tag) as live:
        await live.http.post(f"{live.url}/models/hang/load")
        info: dict[str, Any] = await live.model_info("hang")
        port = int(info["url"].rsplit(":", 1)[1].split("/")[0])
        # The first batch fills the client's pool of kept-alive connections (the liveness
        # probes' own requests, up to one per request): its size is not a leak.
        first = await _stalled_streams(live, port, 10)
        assert all("made no progress" in m for m in first), first
        await asyncio.sleep(0.5)
        before = _sockets_to(port)
        for _ in range(2):
            again = await _stalled_streams(live, port, 10)
            assert all("made no progress" in m for m in again), again
        await asyncio.sleep(0.5)
        after = _sockets_to(port)
        assert after <= before, f"{after - before} upstream sockets leaked by 20 cut requests"


async def test_a_refused_wake_keeps_the_sleeping_remains_counted(tmp_path: Path, tag: str) -> None:
    """Finding 3: waking released the sleeping model's remains before reserving its footprint,
    so a refused reservation left the ledger short of what the device held (1000 MB held,
    900 MB counted), with no violation recorded. A policy that calls ``bring_up`` without
    making room must get a refusal and leave the accounting whole."""
    models = [
        fake_model(
            "a", tag, swap="sleep", sleep_footprint=200 * MB, sleep_device_footprint=100 * MB
        ),
        fake_model("b", tag, footprint=900 * MB),
    ]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")  # NVML absent: degrades
    async with live_gateway(config, tag) as live:
        assert (await live.chat("a")).status_code == 200
        assert (await live.chat("b")).status_code == 200  # a sleeps, keeping 100 MB
        assert live.service.ledger.device == {"a": 100 * MB, "b": 900 * MB}
        slot = live.service.slots["a"]
        assert slot.state is ModelState.SLEEPING
        with pytest.raises(ModelUnavailableError, match="cannot be loaded"):
            await live.service.scheduler.residency.bring_up(slot)  # as a wrong policy would
        assert live.service.ledger.device == {"a": 100 * MB, "b": 900 * MB}
        assert slot.state is ModelState.SLEEPING and slot.sleep_device_held == 100 * MB
        assert (await live.chat("a")).status_code == 200  # the right way still works
        assert live.service.ledger.violations == []


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


async def test_servers_do_not_inherit_the_gateway_token(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 7: the token was in every backend's environment (readable in /proc by any
    process of the user, and by the server's own code)."""
    monkeypatch.setenv("EDGESWARM_GATEWAY_TOKEN", "default-name-token-0123456789")
    monkeypatch.setenv("MY_GATEWAY_TOKEN", "configured-name-token-0123456789")
    config = write_config(tmp_path, [fake_model("a", tag)], 1000 * MB)
    raw = yaml.safe_load(config.read_text())
    raw["auth"] = {"token_env": "MY_GATEWAY_TOKEN"}
    config.write_text(yaml.safe_dump(raw))
    async with live_gateway(config, tag) as live:
        await live.service.load("a")  # in the loop: the HTTP routes want the token
        pid = live.service.slots["a"].backend.pid
        assert pid is not None
        env = _environ(pid)
    assert "MY_GATEWAY_TOKEN" not in env and "EDGESWARM_GATEWAY_TOKEN" not in env
    assert env.get("PATH") == os.environ["PATH"]  # the rest is inherited


async def test_a_stopped_server_is_failed_killed_and_swapped_out(tmp_path: Path, tag: str) -> None:
    """Finding 5: a server alive but stopped (SIGSTOP) stayed ready, because the watchdog only
    checked that its process existed: its requests waited out the idle limit one by one, and
    a model waiting to swap in waited behind their drain. Now it is found hung (no health
    answer, no progress, for ``hung_after_s``), its requests fail at once, it is killed, and
    the next request for it starts a fresh server."""
    models = [fake_model("a", tag), fake_model("b", tag)]
    config = write_config(tmp_path, models, 1000 * MB, request_idle_s=60.0, hung_after_s=1.0)
    async with live_gateway(config, tag) as live:
        assert (await live.http.post(f"{live.url}/models/a/load")).status_code == 200
        pid = live.service.slots["a"].backend.pid
        assert pid is not None
        os.killpg(pid, signal.SIGSTOP)
        try:
            stuck = asyncio.create_task(live.chat("a"))
            other = await live.chat("b")  # a swap: behind a's drain
            cut = await stuck
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGCONT)
        assert other.status_code == 200, other.text
        message = cut.json()["error"]["message"]
        assert cut.status_code == 503, cut.text
        assert "answered no health check" in message and "stopped (SIGSTOP)" in message, message
        for _ in range(100):  # reaped by the coordinator, with KILL: it cannot answer TERM
            if not _exists(pid):
                break
            await asyncio.sleep(0.1)
        assert not _exists(pid), "the hung server was not killed"
        again = await live.chat("a")  # a fresh server
        assert again.status_code == 200, again.text
        assert live.service.slots["a"].backend.pid != pid
