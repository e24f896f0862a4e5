"""One gateway per device on this machine: an exclusive ``flock`` on a machine-wide file.

The lock file is keyed by device (``cpu``; a GPU's UUID from NVML), and lives in one
directory per machine (:func:`lock_dir`), whoever starts the gateway and whatever its state
directory: a second gateway for the same device refuses to start, while gateways for
different GPUs coexist. The kernel drops the lock when its holder exits, however it exits, so
a crash never leaves a stale lock. The file also records who holds it (pid, URL, config), for
the refusal message and for the embedded gateway, which reuses a running one that serves what
it needs.

A second lock, :func:`start_lock`, is taken by runs, not gateways: held while a run looks for
a running embedded gateway and, finding none, starts one and waits for its health. Without it
two runs started together both found the device free, both started a gateway, and the second
exited with code 3 on the device lock, failing its run; with it the second waits, then
reuses the first's gateway. It lives next to the device lock, so runs with different state
directories share it too.

The directory is sticky and world-writable (mode 1777, as ``/tmp``) and the lock files are
readable and writable by all (0666), so that one user's gateway can test and take the lock
another user's gateway left behind.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from runtime.nvml import NVMLUnavailableError, gpu_uuid
from runtime.settings import ENV_PREFIX, Device

LOCK_DIR_ENV = f"{ENV_PREFIX}LOCK_DIR"
"""The environment variable of the ``lock_dir`` setting, which overrides :func:`lock_dir`."""
RUN_LOCK_DIR = Path("/run/edgeswarm")
TMP_LOCK_DIR_NAME = "edgeswarm-locks"
DIR_MODE = 0o1777
FILE_MODE = 0o666
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class DeviceBusyError(RuntimeError):
    """Another gateway already owns the device."""


@dataclass(frozen=True)
class LockHolder:
    """Who owns a device: the gateway's pid, its URL and its config file."""

    pid: int
    url: str
    config: str


def device_key(device: Device, gpu_index: int = 0) -> str:
    """The lock's key for ``device``: ``cpu``, or a GPU's UUID (``GPU-8f6c...``).

    ``cpu`` stands for the host, since the lock directory is per machine. On CUDA the key is
    the UUID of GPU ``gpu_index`` (NVML's index, as the budget's): it names the same GPU for
    every process and user, whatever ``CUDA_VISIBLE_DEVICES`` says. Only when NVML cannot
    say (no driver, a failing call) is the key ``cuda<index>``; a gateway keyed so does not
    see one keyed by the UUID of the same GPU.
    """
    if device is not Device.CUDA:
        return "cpu"
    try:
        return _UNSAFE.sub("_", gpu_uuid(gpu_index))
    except NVMLUnavailableError:
        return f"cuda{gpu_index}"


def lock_dir(override: Path | None = None) -> Path:
    """The machine-wide directory of the device and start locks, made if missing.

    ``override`` (the ``lock_dir`` setting, ``EDGESWARM_LOCK_DIR``: for tests and unusual
    systems) wins. Else ``/run/edgeswarm`` where it is writable, or can be made (as root, or
    once an administrator made it mode 1777), else ``<tempdir>/edgeswarm-locks``
    (:func:`tempfile.gettempdir`, so ``TMPDIR`` moves it: every gateway of a machine must see
    the same one, as must runs looking for one).

    Raises:
        OSError: the directory cannot be made, or is not writable.
    """
    if override is not None:
        override.parent.mkdir(parents=True, exist_ok=True)
        return _shared_dir(override)
    try:
        return _shared_dir(RUN_LOCK_DIR)
    except OSError:
        return _shared_dir(Path(tempfile.gettempdir()) / TMP_LOCK_DIR_NAME)


def _shared_dir(path: Path) -> Path:
    """``path`` as a directory every user can make lock files in: mode 1777, as ``/tmp``."""
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        pass
    else:
        path.chmod(DIR_MODE)  # the umask took bits away
    if not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "the lock directory is not writable", str(path))
    return path


def lock_path(directory: Path, key: str) -> Path:
    """Where the lock file for device ``key`` lives in the lock ``directory``."""
    return directory / f"gateway-{key}.lock"


def _open_lock(path: Path, flags: int) -> int:
    """A descriptor of the lock file at ``path``, made mode 0666 (past the umask) if missing.

    An existing file is opened without ``O_CREAT``: in a sticky directory Linux refuses
    ``O_CREAT`` on another user's file (``fs.protected_regular``) even where its mode allows
    the open. ``O_NOFOLLOW``: a link planted in the shared directory is not followed.
    """
    while True:
        with contextlib.suppress(FileNotFoundError):
            return os.open(path, flags | os.O_NOFOLLOW)
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        except FileExistsError:
            continue  # made by another process since we looked
        os.fchmod(fd, FILE_MODE)
        return fd


def read_holder(path: Path) -> LockHolder | None:
    """The holder recorded in a lock file, or None when there is none to read."""
    try:
        data = json.loads(path.read_text("utf-8"))
        return LockHolder(int(data["pid"]), str(data["url"]), str(data["config"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_locked(path: Path) -> bool:
    """Whether some process holds the lock at ``path`` now."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class DeviceLock:
    """The exclusive claim of one gateway on one device, held until :meth:`release`."""

    def __init__(self, directory: Path, key: str) -> None:
        """The lock of device ``key`` in the lock ``directory`` (:func:`lock_dir`)."""
        self.key = key
        self.path = lock_path(directory, key)
        self._handle: IO[str] | None = None

    def acquire(self, holder: LockHolder) -> None:
        """Take the lock and record ``holder``; raise :class:`DeviceBusyError` if taken."""
        try:
            fd = _open_lock(lock_dir(self.path.parent) / self.path.name, os.O_RDWR)
        except OSError as err:
            raise DeviceBusyError(
                f"cannot open the lock file of device {self.key} ({err}); it must be readable "
                f"and writable by every user (mode 0666). Lock file: {self.path}"
            ) from None
        handle = os.fdopen(fd, "r+", encoding="utf-8")
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


def start_lock_path(directory: Path, key: str) -> Path:
    """Where the embedded gateway's start lock for device ``key`` lives in ``directory``."""
    return directory / f"embedded-start-{key}.lock"


@contextlib.contextmanager
def start_lock(directory: Path, key: str, wait_s: float) -> Iterator[None]:
    """Hold the embedded gateway's start lock for device ``key``, waiting at most ``wait_s``.

    The lock is in the lock ``directory`` (:func:`lock_dir`). The file records the holder's
    pid, for the message when the wait runs out.

    Raises:
        DeviceBusyError: another process held it for all of ``wait_s``.
    """
    path = start_lock_path(lock_dir(directory), key)
    with os.fdopen(_open_lock(path, os.O_RDWR), "r+", encoding="utf-8") as handle:
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
