import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from runtime.process import (
    ManagedProcess,
    ProcessState,
    ServerStartError,
    free_port,
    process_start,
    stop_group,
)
from tests.fakes import fake_command
from tests.support.network import allow_loopback_port
from tests.support.processes import pid_alive


def fake_process(tmp_path: Path, timeout: float = 30, **options: Any) -> ManagedProcess:
    port = free_port()
    allow_loopback_port(port)
    return ManagedProcess(
        "fake",
        fake_command(port, "fake-model", scripted=True, **options),
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=tmp_path / "fake.log",
        start_timeout_s=timeout,
        stop_timeout_s=5,
    )


def state_of(proc: ManagedProcess) -> ProcessState:
    """The process's state now (read through a call: mypy keeps no narrowing across it)."""
    return proc.state


def test_start_waits_for_health_and_stop_ends_the_group(tmp_path: Path) -> None:
    proc = fake_process(tmp_path, load_time=1.5, spawn_child=True)
    started = time.monotonic()
    with proc:
        assert time.monotonic() - started >= 1.5  # health answered 503 while loading
        assert proc.state is ProcessState.READY
        assert os.getpgid(proc.pid or 0) == proc.pid  # its own process group
        found = re.search(r"child pid (\d+)", (tmp_path / "fake.log").read_text())
        assert found is not None
        child = int(found[1])
        assert pid_alive(child)
    assert state_of(proc) is ProcessState.STOPPED
    deadline = time.monotonic() + 5
    while pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not pid_alive(child), "the server's child outlived the stop"


def test_exit_during_start_reports_the_log_tail(tmp_path: Path) -> None:
    proc = fake_process(tmp_path, exit_at_start=3)
    with pytest.raises(
        ServerStartError, match="exited with code 3(.|\n)*failing at start as asked"
    ):
        proc.start()
    assert proc.state is ProcessState.FAILED


def test_health_deadline_stops_the_process(tmp_path: Path) -> None:
    proc = fake_process(tmp_path, timeout=2, load_time=60)
    with pytest.raises(ServerStartError, match="not healthy .* within 2 s"):
        proc.start()
    assert not proc.alive()


def test_stop_happens_on_error_inside_the_block(tmp_path: Path) -> None:
    proc = fake_process(tmp_path)
    with pytest.raises(RuntimeError, match="boom"), proc:
        pid = proc.pid
        raise RuntimeError("boom")
    assert pid is not None and not pid_alive(pid)


def test_stop_twice_is_safe(tmp_path: Path) -> None:
    proc = fake_process(tmp_path)
    proc.start()
    proc.stop()
    proc.stop()
    assert proc.state is ProcessState.STOPPED


TERM_DEAF = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('deaf', flush=True); time.sleep(60)"
)


def test_a_detached_process_keeps_running_and_is_reaped_when_it_exits(tmp_path: Path) -> None:
    proc = fake_process(tmp_path)
    proc.start()
    pid = proc.pid
    assert pid is not None
    proc.detach()  # another user stops it later, by pid
    assert proc.state is ProcessState.STOPPED and proc.pid is None and pid_alive(pid)
    proc.stop()  # no longer ours: a no-op
    assert pid_alive(pid)
    stop_group(pid, process_start(pid), timeout_s=5)
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists():  # reaped, not left a zombie
        assert time.monotonic() < deadline, "the detached process was not reaped"
        time.sleep(0.05)


def test_stop_group_kills_what_ignores_term_and_leaves_a_reused_pid_alone() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", TERM_DEAF], start_new_session=True, stdout=subprocess.PIPE
    ) as deaf:
        assert deaf.stdout is not None and deaf.stdout.readline() == b"deaf\n"
        start = process_start(deaf.pid)
        stop_group(deaf.pid, (start or 0) + 1, timeout_s=0.2)  # another process's start time
        assert deaf.poll() is None
        started = time.monotonic()
        stop_group(deaf.pid, start, timeout_s=0.5)
        assert deaf.wait(timeout=5) == -signal.SIGKILL
        assert 0.5 <= time.monotonic() - started < 5
