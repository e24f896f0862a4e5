"""Server processes we start: own process group, health-checked, always stopped.

A :class:`ManagedProcess` owns one child server (vLLM, a gateway, a fake upstream): it starts
it in a new session so a terminal's Ctrl-C reaches only us, waits for its health URL with a
deadline, and stops the whole group with TERM, then KILL. ``with`` guarantees the stop on
errors and on KeyboardInterrupt alike.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from runtime.logs import get_logger

_log = get_logger("process")
_PR_SET_PDEATHSIG = 1


class ProcessState(StrEnum):
    """Life cycle of a managed server process."""

    STOPPED = "stopped"
    STARTING = "starting"
    READY = "ready"
    STOPPING = "stopping"
    FAILED = "failed"


class ServerStartError(RuntimeError):
    """A server did not become healthy; the message carries the end of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def tail_file(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of a text file, or a note when it cannot be read."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 64 * 1024))
            text = handle.read().decode("utf-8", "replace")
    except OSError as err:
        return f"(no log: {err})"
    return "\n".join(text.splitlines()[-lines:])


def _die_with_parent() -> None:
    """In the child: start a new session and get SIGTERM when the parent dies."""
    os.setsid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class ManagedProcess:
    """One child server process and its health endpoint."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        health_url: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        start_timeout_s: float = 300.0,
        stop_timeout_s: float = 20.0,
        die_with_parent: bool = False,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.command = list(command)
        self.health_url = health_url
        self.log_path = log_path
        self.env = dict(env) if env is not None else dict(os.environ)
        self.start_timeout_s = start_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.die_with_parent = die_with_parent
        self.cwd = cwd
        self.state = ProcessState.STOPPED
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id) while it runs."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the process and block until it is healthy; raise with its log otherwise."""
        if self.state is ProcessState.READY:
            return
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.state = ProcessState.STARTING
        _log.info("process_start", server=self.name, log=str(self.log_path))
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                cwd=self.cwd,
                start_new_session=not self.die_with_parent,
                preexec_fn=_die_with_parent if self.die_with_parent else None,
            )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            self.state = ProcessState.FAILED
            raise
        self.state = ProcessState.READY

    def _wait_healthy(self) -> None:
        started = time.monotonic()
        deadline = started + self.start_timeout_s
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self._proc is not None and self._proc.poll() is not None:
                    raise ServerStartError(
                        f"{self.name} exited with code {self._proc.returncode} while starting; "
                        f"last lines of {self.log_path}:\n{tail_file(self.log_path)}"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.health_url).status_code == 200:
                        seconds = round(time.monotonic() - started, 1)
                        _log.info("process_ready", server=self.name, seconds=seconds)
                        return
                time.sleep(0.5)
        raise ServerStartError(
            f"{self.name} was not healthy at {self.health_url} within {self.start_timeout_s:.0f} s"
            f"; last lines of {self.log_path}:\n{tail_file(self.log_path)}"
        )

    def alive(self) -> bool:
        """Whether the child process is still running."""
        return self._proc is not None and self._proc.poll() is None

    def stop(self, *, force: bool = False) -> None:
        """Stop the whole process group: TERM, wait, then KILL. Safe to call twice.

        ``force``: KILL at once, for a process known not to answer TERM (a stopped one).
        """
        proc = self._proc
        if proc is None:
            return
        self.state = ProcessState.STOPPING
        self._signal_group(proc.pid, signal.SIGKILL if force else signal.SIGTERM)
        try:
            proc.wait(timeout=self.stop_timeout_s)
        except subprocess.TimeoutExpired:
            _log.warning("process_kill", server=self.name, pid=proc.pid)
            self._signal_group(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        # Children that outlived the leader still belong to the group: make sure they go too.
        self._signal_group(proc.pid, signal.SIGKILL)
        self._proc = None
        self.state = ProcessState.STOPPED
        _log.info("process_stopped", server=self.name, pid=proc.pid)

    def detach(self) -> None:
        """Leave the process running, no longer ours to stop (a shared gateway's other users).

        A daemon thread waits for it, so that a long-lived parent (a test session, a server)
        reaps it when it exits instead of keeping a zombie. Meant for a process in its own
        session: one started with ``die_with_parent`` still gets SIGTERM when the thread that
        started it exits.
        """
        proc, self._proc = self._proc, None
        self.state = ProcessState.STOPPED
        if proc is None:
            return
        threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
        _log.info("process_detached", server=self.name, pid=proc.pid)

    @staticmethod
    def _signal_group(pgid: int, sig: signal.Signals) -> None:
        _signal_group(pgid, sig)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_group(pid: int, start: int | None, timeout_s: float, name: str = "process") -> None:
    """Stop process group ``pid`` that another process started: TERM, wait, then KILL.

    ``start`` is the leader's start time (:func:`process_start`): a pid that now names
    another process is left alone. The leader is not our child, so its exit is seen in
    ``/proc`` (a zombie counts as gone), not through ``wait``; and since another process reaps
    it, the group is killed only while the leader is seen alive (its pid cannot be reused yet).
    """
    if not process_alive(pid, start):
        return
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while process_alive(pid, start):
        if time.monotonic() > deadline:
            _log.warning("process_kill", server=name, pid=pid)
            _signal_group(pid, signal.SIGKILL)
            break
        time.sleep(0.1)
    _log.info("process_stopped", server=name, pid=pid)


def process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), None if unknown or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[19])


def process_alive(pid: int, start: int | None) -> bool:
    """True while process ``pid`` runs and is the one that started at ``start`` (if known)."""
    if Path("/proc/self/stat").exists():  # Linux: tells a zombie or a reused pid apart
        now = process_start(pid)
        return now is not None and (start is None or now == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
