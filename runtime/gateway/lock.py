"""One gateway per device: an exclusive ``flock`` on a file under the state directory.

The lock file is keyed by device (``cpu``, ``cuda0``, ...), so a second gateway for the same
device on this machine refuses to start, while gateways for different GPUs coexist. The kernel
drops the lock when its holder exits, however it exits, so a crash never leaves a stale lock.
The file also records who holds it (pid, URL, config), for the refusal message and for the
embedded gateway, which reuses a running one that serves what it needs.

A second lock, :func:`start_lock`, is taken by runs, not gateways: held while a run looks for
a running embedded gateway and, finding none, starts one and waits for its health. Without it
two runs started together both found the device free, both started a gateway, and the second
exited with code 3 on the device lock, failing its run; with it the second waits, then
reuses the first's gateway.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from runtime.settings import Device


class DeviceBusyError(RuntimeError):
    """Another gateway already owns the device."""


@dataclass(frozen=True)
class LockHolder:
    """Who owns a device: the gateway's pid, its URL and its config file."""

    pid: int
    url: str
    config: str


def device_key(device: Device, gpu_index: int = 0) -> str:
    """The lock's key for ``device``: ``cpu`` or ``cuda<index>``."""
    return f"cuda{gpu_index}" if device is Device.CUDA else "cpu"


def lock_path(state_dir: Path, key: str) -> Path:
    """Where the lock file for device ``key`` lives."""
    return state_dir / "gateway" / f"{key}.lock"


def read_holder(path: Path) -> LockHolder | None:
    """The holder recorded in a lock file, or None when there is none to read."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return LockHolder(int(data["pid"]), str(data["url"]), str(data["config"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_locked(path: Path) -> bool:
    """Whether some process holds the lock at ``path`` now."""
    if not path.exists():
        return False
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


class DeviceLock:
    """The exclusive claim of one gateway on one device, held until :meth:`release`."""

    def __init__(self, state_dir: Path, key: str) -> None:
        self.key = key
        self.path = lock_path(state_dir, key)
        self._handle: IO[str] | None = None

    def acquire(self, holder: LockHolder) -> None:
        """Take the lock and record ``holder``; raise :class:`DeviceBusyError` if taken."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise DeviceBusyError(self._busy_message()) from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(asdict(holder)))
        handle.flush()
        os.fsync(handle.fileno())
        self._handle = handle

    def _busy_message(self) -> str:
        holder = read_holder(self.path)
        who = f"pid {holder.pid}, {holder.url}, config {holder.config}" if holder else "unknown"
        return (
            f"another edgeswarm gateway already owns device {self.key} on this machine ({who}); "
            f"one gateway per device keeps the memory budget true. Stop it, or point clients "
            f"at it (EDGESWARM_BASE_URL). Lock file: {self.path}"
        )

    def release(self) -> None:
        """Give the device up (also happens when the process exits)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.seek(0)
            handle.truncate()
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def start_lock_path(state_dir: Path, key: str) -> Path:
    """Where the embedded gateway's start lock for device ``key`` lives."""
    return state_dir / "gateway" / f"embedded-start-{key}.lock"


@contextlib.contextmanager
def start_lock(state_dir: Path, key: str, wait_s: float) -> Iterator[None]:
    """Hold the embedded gateway's start lock for device ``key``, waiting at most ``wait_s``.

    The file records the holder's pid, for the message when the wait runs out.

    Raises:
        DeviceBusyError: another process held it for all of ``wait_s``.
    """
    path = start_lock_path(state_dir, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DeviceBusyError(_start_busy_message(path, key, wait_s)) from None
                time.sleep(0.05)
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _start_busy_message(path: Path, key: str, wait_s: float) -> str:
    try:
        who = f"pid {int(path.read_text('utf-8'))}"
    except (OSError, ValueError):
        who = "another process"
    return (
        f"{who} has been looking for or starting the embedded gateway of device {key} for "
        f"more than {wait_s:.0f} s (a start, or the wait for a stopping gateway, takes less); "
        f"if it is stuck, stop it and run again, or set EDGESWARM_BASE_URL to a running "
        f"gateway. Lock file: {path}"
    )
