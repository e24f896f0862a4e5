"""A CPU hog: N busy processes beside a benchmark (or beside ``make demo``), always stopped.

``python -m bench.hog [--procs N] [--seconds S]`` keeps N processes (default: twice the usable
cores) spinning on integer arithmetic for S seconds (default 600), then stops; Ctrl-C stops it
sooner. In a program, :class:`Hog` is a context manager::

    with Hog(procs=4, max_seconds=3600):
        ...  # the work to measure beside a busy machine

It runs the same command as a child in a session (process group) of its own: a supervisor
and its N workers. Leaving the block (normally, on an error, on Ctrl-C, and on SIGTERM, which
the block turns into ``SystemExit`` while it runs in the main thread) kills that whole group and
reaps it. It is also bounded on its own: the supervisor and every worker stop at the deadline
(``max_seconds`` after the start) and when the process that started them is gone (a SIGKILLed
benchmark), checked several times a second, so nothing keeps burning the cores behind a dead
benchmark. Workers run at the caller's priority: vLLM CPU's OpenMP threads stall beside any
busy process, even at ``nice 19`` (docs/hardware.md).

Standard library only: no install, fast to start.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Self

DEFAULT_SECONDS = 600.0
CHECK_EVERY_S = 0.1
"""How often the supervisor checks its deadline and its parent; workers check as often."""
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
_PR_SET_PDEATHSIG = 1
ROOT = Path(__file__).resolve().parent.parent


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_procs() -> int:
    """Twice the usable cores: every core busy, with a queue behind it."""
    return 2 * usable_cores()


def _parent_gone(parent: int | None) -> bool:
    """Whether ``parent`` (the pid whose child we were) is no longer our parent."""
    return parent is not None and os.getppid() != parent


def _spin(deadline: float, parent: int) -> None:
    """A worker: integer arithmetic until the deadline or until its supervisor is gone."""
    x = 1
    while time.monotonic() < deadline and os.getppid() == parent:
        stop = time.monotonic() + CHECK_EVERY_S
        while time.monotonic() < stop:
            for _ in range(2000):
                x = (x * 1103515245 + 12345) & 0x7FFFFFFF


def _die_with_parent() -> None:
    """SIGKILL this process when its parent dies (Linux; elsewhere the checks suffice)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def supervise(procs: int, seconds: float, parent: int | None = None) -> int:
    """Fork ``procs`` spinning workers, print ``ready <pids>``, stop them all by the deadline.

    Returns when the deadline passes, when ``parent`` is gone, or on SIGTERM/SIGINT; every
    worker is killed and reaped first.
    """
    deadline = time.monotonic() + seconds
    me = os.getpid()
    workers: list[int] = []
    stopping = False

    def stop(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for _ in range(procs):
            pid = os.fork()
            if pid == 0:  # the worker
                code = 0
                try:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    _die_with_parent()
                    _spin(deadline, me)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            workers.append(pid)
        print("ready " + " ".join(map(str, workers)), flush=True)
        while not stopping and time.monotonic() < deadline and not _parent_gone(parent):
            time.sleep(CHECK_EVERY_S)
    finally:
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in workers:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return 0


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def group_pids(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``, sorted."""
    # imported here: the supervisor and its workers (this module run as a script) never call
    # it, and keep the fast, standard-library-only start
    from runtime.gateway.budget import process_group_pids

    return sorted(process_group_pids(pgid))


class Hog:
    """N busy processes for the duration of a ``with`` block (see the module's text)."""

    def __init__(self, procs: int | None = None, max_seconds: float = DEFAULT_SECONDS) -> None:
        if procs is not None and procs < 1:
            raise ValueError(f"procs must be at least 1, not {procs}")
        if max_seconds <= 0:
            raise ValueError(f"max_seconds must be more than 0, not {max_seconds}")
        self.procs = procs or default_procs()
        self.max_seconds = max_seconds
        self.workers: list[int] = []
        self._proc: subprocess.Popen[str] | None = None
        self._trapped = False

    @property
    def pgid(self) -> int | None:
        """The hog's process group (its supervisor's pid) while it runs."""
        return self._proc.pid if self._proc is not None else None

    def command(self) -> list[str]:
        """The supervisor's argument vector."""
        return [
            sys.executable,
            "-m",
            "bench.hog",
            "--procs",
            str(self.procs),
            "--seconds",
            str(self.max_seconds),
            "--parent",
            str(os.getpid()),
        ]

    def start(self) -> None:
        """Start the supervisor and its workers; return once every worker runs."""
        self._proc = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,  # `-m bench.hog` finds this checkout's bench package
            start_new_session=True,
        )
        try:
            line = self._ready_line()
        except BaseException:
            self.stop()
            raise
        self.workers = [int(pid) for pid in line.split()[1:]]

    def _ready_line(self) -> str:
        if self._proc is None or self._proc.stdout is None:
            raise RuntimeError("the CPU hog is not running")
        with selectors.DefaultSelector() as selector:
            selector.register(self._proc.stdout, selectors.EVENT_READ)
            if not selector.select(START_TIMEOUT_S):
                raise RuntimeError(f"the CPU hog did not start within {START_TIMEOUT_S:.0f} s")
        line = self._proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"the CPU hog failed to start (exit {self._proc.poll()})")
        return line

    def stop(self) -> None:
        """Kill the whole group (supervisor and workers); return once none of it runs.

        SIGKILL takes effect asynchronously: the workers (the supervisor's children, the
        init process's once it is gone) are waited for until they have exited, at most
        :data:`STOP_TIMEOUT_S`.
        """
        proc, self._proc = self._proc, None
        if proc is None:
            return
        deadline = time.monotonic() + STOP_TIMEOUT_S
        try:
            _kill_group(proc.pid)
            proc.wait(STOP_TIMEOUT_S)
            while group_pids(proc.pid) and time.monotonic() < deadline:
                _kill_group(proc.pid)
                time.sleep(0.01)
        finally:
            if proc.stdout is not None:
                proc.stdout.close()

    def __enter__(self) -> Self:
        self._trap_sigterm()
        try:
            self.start()
        except BaseException:
            self._restore_sigterm()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.stop()
        finally:
            self._restore_sigterm()

    def _trap_sigterm(self) -> None:
        """SIGTERM raises SystemExit in the block (main thread, default handler only)."""
        if not _main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return

        def leave(signum: int, _frame: FrameType | None) -> None:
            raise SystemExit(128 + signum)

        signal.signal(signal.SIGTERM, leave)
        self._trapped = True

    def _restore_sigterm(self) -> None:
        if self._trapped:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            self._trapped = False


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def hog(procs: int | None = None, max_seconds: float = DEFAULT_SECONDS) -> Iterator[Hog]:
    """:class:`Hog` as a function."""
    with Hog(procs, max_seconds) as running:
        yield running


def main(argv: Sequence[str] | None = None) -> int:
    """Run the hog in the foreground until ``--seconds`` pass or Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m bench.hog", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--procs", type=int, default=default_procs(), help="busy processes (default: 2 x cores)"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help=f"stop after this long (default {DEFAULT_SECONDS:.0f})",
    )
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)  # stop when it is gone
    args = parser.parse_args(argv)
    if args.procs < 1 or args.seconds <= 0:
        parser.error("--procs must be at least 1 and --seconds more than 0")
    if args.parent is None:
        print(
            f"bench.hog: {args.procs} busy processes for {args.seconds:.0f} s (Ctrl-C stops them)",
            file=sys.stderr,
            flush=True,
        )
    return supervise(args.procs, args.seconds, args.parent)


if __name__ == "__main__":
    raise SystemExit(main())
