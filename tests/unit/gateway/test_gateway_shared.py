"""The embedded gateway shared by runs (issue 21, part 3): leases and the start lock.

Each test starts real gateway processes (``python -m runtime.gateway.cli``) with the fake vLLM
backend, through :func:`embedded_gateway` with a test config; a "run" is a block of
``embedded_gateway`` in this process, or in a subprocess where the test must SIGKILL it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.gateway.embedded import dying_reason, embedded_gateway, leases_dir, sweep_stale
from runtime.gateway.leases import LEASE_POLL_S, live_leases, take_lease
from runtime.gateway.lock import (
    DeviceBusyError,
    LockHolder,
    device_key,
    is_locked,
    lock_path,
    read_holder,
    start_lock,
)
from runtime.process import process_alive
from runtime.settings import Device, Settings, load_settings
from tests.fakes import fake_command
from tests.support import ROOT
from tests.support.gateway import live_fakes
from tests.support.network import allow_loopback_port, allowed_port
from tests.support.processes import dead_pid

pytestmark = pytest.mark.timeout(120)
GONE_WITHIN_S = 20.0  # a fake gateway stops in about a second; the machine may be busy


@pytest.fixture(autouse=True)
def _allowed_gateway_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let this process reach the ports embedded gateways it starts listen on."""
    monkeypatch.setattr("runtime.gateway.embedded.free_port", allowed_port)


def fake_config(state: Path, tag: str) -> dict[str, Any]:
    """A gateway config for one model, ``a``, served by the fake vLLM server."""
    command = fake_command(footprint=1000, tag=tag)
    return {
        "device": "cpu",
        "state_dir": str(state),
        "budget": {"bytes": "1GiB"},
        "models": [{"name": "a", "backend": "command", "command": command, "footprint": "100MiB"}],
    }


@pytest.fixture
def tag() -> str:
    return f"t-{os.getpid()}-{time.monotonic_ns()}"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(state_dir=tmp_path / "state")


def ask(url: str) -> str:
    """One chat completion from model ``a`` through the gateway at ``url`` (its /v1)."""
    body = {"model": "a", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    response = httpx.post(f"{url}/chat/completions", json=body, timeout=30, trust_env=False)
    response.raise_for_status()
    content: str = response.json()["choices"][0]["message"]["content"]
    return content


def gateway_holder(settings: Settings) -> LockHolder:
    holder = read_holder(lock_path(settings.state_dir, device_key(Device.CPU)))
    assert holder is not None, "no gateway holds the device"
    return holder


def wait_while(busy: Callable[[], object], why: str, within_s: float = GONE_WITHIN_S) -> float:
    """Seconds until ``busy()`` is false; fails with ``why`` after ``within_s``."""
    started = time.monotonic()
    while busy():
        assert time.monotonic() - started < within_s, why
        time.sleep(0.05)
    return time.monotonic() - started


def wait_gone(pid: int, within_s: float = GONE_WITHIN_S) -> float:
    """Seconds until process ``pid`` is gone (a zombie counts); fails after ``within_s``."""
    return wait_while(lambda: process_alive(pid, None), f"pid {pid} still runs", within_s)


def wait_released(settings: Settings) -> None:
    """Wait until the CPU device lock is free; fail after :data:`GONE_WITHIN_S`.

    A gateway's main thread can show as a zombie (gone, to :func:`wait_gone`) while its other
    threads still close the process's files, the lock among them: the kernel lets go of the
    lock when the last thread exits, a moment later (as runtime.gateway.embedded waits too).
    """
    path = lock_path(settings.state_dir, device_key(Device.CPU))
    wait_while(lambda: is_locked(path), f"{path} still held {GONE_WITHIN_S} s after its gateway")


def assert_all_stopped(settings: Settings, pid: int, tag: str) -> None:
    wait_gone(pid)
    wait_released(settings)
    # the model server goes with its gateway
    wait_while(lambda: live_fakes(tag), "the fake vLLM server outlived its gateway")


def test_the_starter_ending_leaves_the_gateway_to_a_run_that_still_uses_it(
    settings: Settings, tag: str
) -> None:
    config = fake_config(settings.state_dir, tag)
    with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
        url = first.enter_context(embedded_gateway(settings, ["a"], config=config))
        assert ask(url)
        pid = gateway_holder(settings).pid
        assert second.enter_context(embedded_gateway(settings, ["a"], config=config)) == url
        with (
            pytest.raises(DeviceBusyError, match=f"pid {pid} at .* does not serve zzz"),
            embedded_gateway(settings, ["a", "zzz"], config=config),
        ):
            pass
        assert len(live_leases(leases_dir(Path(gateway_holder(settings).config)))) == 2
        first.close()  # the run that started it ends while the second still uses it
        time.sleep(3 * LEASE_POLL_S)  # the gateway's own watch would have stopped it by now
        assert ask(url) and process_alive(pid, None)
        second.close()  # the last run ends: the gateway goes with it, at once
        assert not process_alive(pid, None)
    assert_all_stopped(settings, pid, tag)
    gateway_dir = settings.state_dir / "gateway"
    assert not [*gateway_dir.glob("embedded-*.yaml"), *gateway_dir.glob("embedded-*.leases")]


def test_runs_started_together_share_one_gateway(settings: Settings, tag: str) -> None:
    config = fake_config(settings.state_dir, tag)
    both_in, results = threading.Barrier(2, timeout=60), {}
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            with embedded_gateway(settings, ["a"], config=config) as url:
                results[name] = (url, ask(url))
                both_in.wait()  # neither ends before both have asked
        except BaseException as err:
            errors.append(err)
            both_in.abort()

    threads = [threading.Thread(target=run, args=(name,)) for name in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert not errors, errors
    assert results["one"][0] == results["two"][0]
    assert all(answer for _, answer in results.values())
    logs = sorted(settings.log_dir().glob("gateway-*.log"))
    assert len(logs) == 1, "only one gateway was started"
    port = int(results["one"][0].split(":")[2].split("/")[0])
    assert logs[0].name == f"gateway-{port}.log"
    wait_released(settings)
    assert not live_fakes(tag)


STARTER = """
import json, sys, time
from pathlib import Path
from runtime.gateway.embedded import embedded_gateway
from runtime.settings import load_settings
settings = load_settings(state_dir=Path(sys.argv[1]))
with embedded_gateway(settings, ["a"], config=json.loads(sys.argv[2])) as url:
    print("url", url, flush=True)
    time.sleep(600)
"""


@contextlib.contextmanager
def starter_run(
    settings: Settings, config: dict[str, Any]
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A run in another process that starts the embedded gateway and keeps using it."""
    args = [str(settings.state_dir), json.dumps(config)]
    with subprocess.Popen(
        [sys.executable, "-c", STARTER, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as starter:
        try:
            assert starter.stdout is not None
            line = ""
            for line in starter.stdout:  # its log lines, then the URL
                if line.startswith("url "):
                    break
            url = line.removeprefix("url ").strip()
            assert url.startswith("http://127.0.0.1:"), "the starter did not start a gateway"
            allow_loopback_port(int(url.split(":")[2].split("/")[0]))
            yield starter, url
        finally:
            starter.kill()


def test_a_sigkilled_starter_does_not_take_the_gateway_from_another_run(
    settings: Settings, tag: str
) -> None:
    config = fake_config(settings.state_dir, tag)
    with starter_run(settings, config) as (starter, url):
        pid = gateway_holder(settings).pid
        with embedded_gateway(settings, ["a"], config=config) as ours:
            assert ours == url
            starter.send_signal(signal.SIGKILL)  # no finally, no lease removed
            starter.wait(timeout=10)
            time.sleep(3 * LEASE_POLL_S)  # past the gateway's look at its leases
            assert process_alive(pid, None) and ask(ours), "the gateway died with its starter"
        assert not process_alive(pid, None)  # our run was its last: stopped as ours ended
    assert_all_stopped(settings, pid, tag)


def test_a_sigkilled_last_user_leaves_nothing_running_whatever_dead_leases_remain(
    settings: Settings, tag: str
) -> None:
    """The gateway stops itself when its last live lease goes; a lease file whose process
    has exited (a run killed before, a reused pid) does not keep it running."""
    config = fake_config(settings.state_dir, tag)
    with starter_run(settings, config) as (starter, url):
        holder = gateway_holder(settings)
        assert ask(url)
        leases = leases_dir(Path(holder.config))
        stale = leases / f"{dead_pid()}-0000"
        stale.write_text(json.dumps({"pid": dead_pid(), "start": None}))
        reused = leases / f"{os.getpid()}-0001"  # our pid, but another process's start time
        reused.write_text(json.dumps({"pid": os.getpid(), "start": 1}))
        assert live_leases(leases) != []  # the starter's
        assert stale not in live_leases(leases) and reused not in live_leases(leases)
        starter.send_signal(signal.SIGKILL)
        starter.wait(timeout=10)
        assert live_leases(leases) == []
        assert dying_reason(holder) is not None or not process_alive(holder.pid, None)
        seconds = wait_gone(holder.pid)
    assert seconds < GONE_WITHIN_S
    assert_all_stopped(settings, holder.pid, tag)


def test_a_run_waits_for_the_start_lock_a_bounded_time_and_says_who_holds_it(
    settings: Settings, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runtime.gateway.embedded.START_LOCK_WAIT_S", 0.5)
    config = fake_config(settings.state_dir, tag)
    with start_lock(settings.state_dir, "cpu", wait_s=1):  # a run stuck while starting one
        started = time.monotonic()
        with (
            pytest.raises(DeviceBusyError, match=f"pid {os.getpid()} has been looking for or "),
            embedded_gateway(settings, ["a"], config=config),
        ):
            pass
        assert 0.5 <= time.monotonic() - started < 5
    assert not live_fakes(tag) and not (settings.state_dir / "logs").exists()


def test_a_killed_run_s_gateway_config_is_swept_once_nothing_uses_it(tmp_path: Path) -> None:
    """A SIGKILLed run cannot remove its embedded gateway's config; the next start does."""

    def config(owner: int, port: int) -> Path:
        path = tmp_path / f"embedded-{owner}-{port}.yaml"
        path.write_text("models: []\n")
        leases_dir(path).mkdir()
        return path

    gone = dead_pid()
    stale = config(gone, 1)
    (leases_dir(stale) / f"{gone}-0000").write_text(json.dumps({"pid": gone, "start": None}))
    still_used = config(gone, 2)  # its starter was killed, but another run leases it
    lease = take_lease(leases_dir(still_used))
    mine = config(os.getpid(), 3)  # a live run's own (it removes it when it ends)
    other = tmp_path / "gateway.yaml"
    other.write_text("models: []\n")
    assert sweep_stale(tmp_path) == [stale]
    assert not stale.exists() and not leases_dir(stale).exists()
    assert still_used.exists() and mine.exists() and other.exists()
    lease.release()
    assert sweep_stale(tmp_path) == [still_used]
    assert sweep_stale(tmp_path) == [] and mine.exists()
