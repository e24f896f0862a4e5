"""Leases on a shared embedded gateway: one file per user, alive while its process is.

Runs that use the same embedded gateway each hold a lease: a file ``<pid>-<random>`` in the
gateway's lease directory, holding the pid and that process's start time. A lease counts
while the file exists and its process runs (the start time tells a reused pid apart), so a
run that ends removes its lease, and a run that is SIGKILLed stops counting at once, with no
file to clean up. The gateway watches its directory (:class:`LeaseWatch`, started by
``--leases DIR``) and stops itself when no lease counts any more; the run that ends last stops
it at once.

Why no lock is needed between a run that takes a lease and one that ends its own: a taker
writes its lease *before* it looks for other live leases, and an ending run removes its lease
before it looks (as the watch only looks). So of two that cross, at least one sees the other:
either the taker sees no other live lease and leaves the gateway to stop (it starts its own),
or the ender sees the taker's lease and leaves the gateway running. Once a gateway has no live
lease it never gets one again, so "no live lease" is a safe sign that it is stopping.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runtime.logs import get_logger
from runtime.process import process_alive, process_start

LEASE_POLL_S = 0.5
"""How often a gateway looks at its leases: a SIGKILLed last user's gateway stops within it."""
_log = get_logger("gateway.leases")


@dataclass(frozen=True)
class Lease:
    """One user's claim on a shared gateway, held until :meth:`release`."""

    path: Path

    def release(self) -> None:
        """End the lease (safe to call twice, and after the directory is gone)."""
        self.path.unlink(missing_ok=True)


def take_lease(directory: Path) -> Lease:
    """Write a lease for this process into ``directory``, which must exist.

    The file appears whole (written aside, then renamed), so a reader never sees half of it.

    Raises:
        FileNotFoundError: the directory is gone (its gateway has stopped).
    """
    pid = os.getpid()
    name = f"{pid}-{secrets.token_hex(4)}"
    aside = directory / f".{name}.tmp"
    aside.write_text(json.dumps({"pid": pid, "start": process_start(pid)}), "utf-8")
    path = directory / name
    os.replace(aside, path)
    return Lease(path)


def _alive(path: Path) -> bool:
    try:
        data = json.loads(path.read_text("utf-8"))
        pid, start = int(data["pid"]), data["start"]
    except (OSError, ValueError, KeyError, TypeError):
        return False  # gone while we looked, or not a lease
    return process_alive(pid, int(start) if start is not None else None)


def live_leases(directory: Path, *, besides: Lease | None = None) -> list[Path]:
    """The leases in ``directory`` whose process still runs, ``besides`` left out.

    A missing directory has none. Leases of exited processes are ignored, not removed: they
    go with the directory.
    """
    try:
        entries = sorted(directory.iterdir())
    except FileNotFoundError:
        return []
    skip = besides.path if besides is not None else None
    return [p for p in entries if not p.name.startswith(".") and p != skip and _alive(p)]


def remove_leases(directory: Path) -> None:
    """Remove a stopped gateway's lease directory and whatever is left in it."""
    shutil.rmtree(directory, ignore_errors=True)


class LeaseWatch:
    """Calls ``on_empty`` once, from a daemon thread, when ``directory`` has no live lease."""

    def __init__(
        self, directory: Path, on_empty: Callable[[], None], interval_s: float = LEASE_POLL_S
    ) -> None:
        self.directory = directory
        self.on_empty = on_empty
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease-watch", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (without calling ``on_empty``)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            if not live_leases(self.directory):
                _log.info("leases_ended", leases=str(self.directory))
                self.on_empty()
                return
