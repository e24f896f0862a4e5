"""Run untrusted Python (the coder agent's code and its tests) inside a bubblewrap sandbox.

Threat model
------------
The attacker is the code itself: model-written Python that may be buggy or hostile
(prompt injection can make it so). It runs with the privileges of the caller, so every
limit below is enforced by the kernel, not by Python.

Assets protected and how:

* Network: ``--unshare-net`` gives the child its own network namespace holding only a
  loopback device, so nothing on the host (its loopback included) or beyond is reachable.
* Host secrets: the child's root is an empty tmpfs (remounted read-only) into which only
  ``/usr`` (plus the ``/lib``/``/bin`` symlinks), a few ld.so files from ``/etc``, the
  interpreter's prefix and the caller's explicitly listed import paths are bound
  read-only. ``/root``, ``/home``, ``/etc/shadow``, the project directory and its
  ``.env`` simply do not exist inside. The environment is cleared both for bwrap and for
  the child, so neither ``os.environ`` nor ``/proc/1/environ`` shows the caller's.
* Host filesystem integrity: the only writable places are ``/work`` (the working
  directory, a size-capped tmpfs that vanishes with the sandbox; ``/tmp`` points at it)
  and a small ``/dev/shm``. Input files are copied into ``/work`` from a read-only bind.
* Availability: ``RLIMIT_AS`` (memory), ``RLIMIT_CPU``, ``RLIMIT_NOFILE``,
  ``RLIMIT_FSIZE`` and ``RLIMIT_CORE`` are set as hard limits before the code starts, and
  an unprivileged process cannot raise a hard limit again. ``RLIMIT_AS`` holds each process
  on its own, so the sandbox as a whole is also put in a fresh memory cgroup (v1 or v2, swap
  off where the kernel has the knob) limited to ``memory_mb`` plus the tmpfs caps plus
  :data:`_MEMORY_OVERHEAD_MB`; over it, the kernel's OOM killer kills inside the group and the
  run reports ``killed_reason="memory_limit"``. Where no memory cgroup can be made (not root,
  or the hierarchy is delegated elsewhere), the run goes on with ``RLIMIT_AS`` alone, says so
  in :attr:`ExecResult.memory_scope` and logs a warning once per process. The process count
  is capped by ``RLIMIT_NPROC`` for a non-root caller; because the kernel never applies
  ``RLIMIT_NPROC`` to uid 0, a root caller additionally puts the sandbox in a fresh
  ``pids`` cgroup (v1 or v2) and refuses to run when it cannot. Output is read
  incrementally and the sandbox is killed once it exceeds the cap. The wall-clock timeout
  kills bwrap's process group; ``--die-with-parent`` then kills the code, which runs as
  pid 1 of its own pid namespace (``--as-pid-1``), so the kernel takes down every other
  process in the sandbox with it, orphans and daemons included (the same happens when
  the code exits normally). Every pid left in the run's cgroups is killed too, and the
  groups are removed after every run, a failed one included.
* Privilege: the child runs as uid 65534 inside a new user namespace with all
  capabilities dropped, ``no_new_privs`` set by bwrap, a new session (no TIOCSTI into the
  caller's terminal) and no way to create further user namespaces.

Fail closed: if bwrap is missing, a namespace cannot be created, a mount fails, a limit
cannot be set or (as root) no pids cgroup is available, :class:`SandboxUnavailable` is
raised and the code is never run (the memory cgroup is the one limit that may be missing:
the run then says so, see Availability). A run counts as started only after the in-sandbox
bootstrap has applied every limit and reported back on a private pipe.

Out of scope: kernel exploits (there is no seccomp filter, so the full syscall surface
of an unprivileged user namespace is reachable), timing side channels, and the host
paths visible in ``/proc/self/mountinfo``. Code inside can read everything under
``/usr``, which is assumed to hold no secrets.

Verdicts: a harness that judges the code it runs (:data:`TEST_RUNNER_CODE`, the check
runner's) reads its inputs from and writes its verdict to a private channel (``private=`` of
:func:`run_python`, :attr:`ExecResult.report`), never to stdout, which the code can write. It
runs the code in a forked child that closes the channel first, and makes itself non-dumpable so
the child cannot reopen it through ``/proc/1/fd`` (see :data:`HARNESS_LIB`).

Imports: the interpreter's own stdlib and site-packages are visible. pytest is only
importable if installed there or if its site-packages directory is listed in
``SandboxConfig.extra_python_paths`` (bound read-only); :func:`run_tests` instead uses a
tiny built-in runner for pytest-style ``test_*`` functions and ``unittest`` cases.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Literal

import structlog
from pydantic import BaseModel, ConfigDict

__all__ = [
    "HARNESS_LIB",
    "TEST_RUNNER_CODE",
    "ExecResult",
    "SandboxConfig",
    "SandboxUnavailable",
    "private_frames",
    "run_python",
    "run_tests",
    "test_counts",
]

log = structlog.get_logger(__name__)

KilledReason = Literal["timeout", "output_limit", "cpu_limit", "memory_limit", "signal"]
"""Why a run (or, for ``memory_limit``, a process in it) was stopped. ``memory_limit``: a
process hit its ``RLIMIT_AS`` (a ``MemoryError``), or the kernel's OOM killer killed a process
because the sandbox as a whole reached its memory cgroup's limit."""
MemoryScope = Literal["sandbox", "process"]

_SANDBOX_UID = 65534
_WORK = "/work"
_INPUT = "/run/input"
_PY_MOUNT = "/opt/python"
_MAIN = "main.py"
# These name paths inside the sandbox's own mount namespace, not the host's.
_SHM = "/dev/shm"  # noqa: S108
_TMP = "/tmp"  # noqa: S108
_READY_TOKEN = b"edgeswarm-sandbox-ready"
_MAX_FILES = 200
_MAX_INPUT_BYTES = 8 * 1024 * 1024
_JOIN_CGROUP = (
    "/bin/sh",
    "-c",
    'echo 0 > "$0" || exit 1; while [ "$1" != -- ]; do echo 0 > "$1" || exit 1; shift; done; '
    'shift; exec "$@"',
)
"""Run as ``[*_JOIN_CGROUP, cgroup.procs, *more cgroup.procs, "--", *argv]``: the shell writes
"0" to each group's ``cgroup.procs`` (which moves the writer, itself; pids and memory are
separate groups under cgroup v1) and then becomes bwrap; if a write fails it exits and bwrap
never starts. No ``preexec_fn``, so subprocess can spawn with vfork: forking the caller instead
copied its page tables under the GIL, with every thread stopped, which grew with its heap (60
runs from a process holding a 700 MB heap took 4.4 s instead of 3.1; a test process that had
run the gateway state machine ran the 50-run swarm load test twice as slowly)."""
_MEMORY_OVERHEAD_MB = 32
"""What the sandbox's memory cgroup holds beyond ``memory_mb`` and its two tmpfs caps (whose
pages the kernel charges to the group): the harness's parent (the sandbox's pid 1, a Python
process of about 10 MiB resident beside the child that runs the code under test), bwrap's
monitor process, and the kernel memory charged to the group (page tables, namespaces, pipes).
So a single process that fits its ``RLIMIT_AS``, with ``/work`` and ``/dev/shm`` full, still
fits the group, as it did before the group existed."""

# Runs inside the sandbox before the user's code: copy the inputs into the tmpfs work dir,
# set hard limits, report readiness on the private fd, close it and exec the user's code
# (with the private channel's two fds, when it has one, as its arguments). The bootstrap itself
# starts without ``site`` (-S): it needs only the stdlib, and ``site`` runs every ``.pth`` file
# of the interpreter's site-packages (on these machines one imports certifi: 25 of the 31 ms
# a bare interpreter takes to start).
_BOOTSTRAP = """\
import os, resource, shutil, sys
shutil.copytree({input!r}, {work!r}, dirs_exist_ok=True)
for name, value in {limits!r}:
    resource.setrlimit(getattr(resource, name), (value, value))
os.write({fd}, {token!r})
os.close({fd})
os.execv(sys.executable, [sys.executable, *{flags!r}, {main!r}, *{args!r}])
"""

HARNESS_LIB = r'''
import os, sys

# The script's own dir (the work dir, where the code under test lies) leaves sys.path for the
# parent's imports and comes back for the child's.
HERE = os.path.dirname(os.path.abspath(sys.argv[0] if sys.argv else ""))
HERE = sys.path.pop(0) if sys.path and sys.path[0] in ("", HERE) else None
import json, select, signal, time

PRIVATE = len(sys.argv) == 3 and sys.argv[1].isdigit() and sys.argv[2].isdigit()
IN_FD, OUT_FD = (int(sys.argv[1]), int(sys.argv[2])) if PRIVATE else (-1, -1)
LINE_CAP = 1 << 20


def harden():
    """Keep the child out of this process: not dumpable, so no /proc/<pid>/fd, mem or ptrace
    for the same uid, and SIGINT ignored (as the sandbox's pid 1, nothing else reaches it)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def read_exactly(fd, size):
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError("the private input ended early")
        data += chunk
    return data


def read_frame():
    """The next frame of the private input: 16 digits of length, then that much JSON."""
    return json.loads(read_exactly(IN_FD, int(read_exactly(IN_FD, 16))))


def close_input():
    """Done with the private input (its fd number may be reused: children must not close it)."""
    global IN_FD
    os.close(IN_FD)
    IN_FD = -1


def write_verdict(verdict):
    global OUT_FD
    data = json.dumps(verdict).encode()
    while data:
        data = data[os.write(OUT_FD, data) :]
    os.close(OUT_FD)
    OUT_FD = -1


class Ended:
    """Why the child sent no (further) report: kind "late" (the deadline passed), "ended" (it
    exited, was killed or closed its pipe) or "forged" (a line not in the harness's form)."""

    def __init__(self, kind, why):
        self.kind, self.why = kind, why


class Link:
    """The child's end: its reports to the parent (each line starts with the run's nonce),
    and the parent's replies."""

    def __init__(self, nonce, replies, reports):
        self.head, self.replies, self.fd = nonce.encode(), os.fdopen(replies, "rb"), reports

    def send(self, message):
        data = self.head + json.dumps(message).encode() + b"\n"
        while data:
            data = data[os.write(self.fd, data) :]

    def recv(self):
        line = self.replies.readline()
        if not line:
            raise EOFError("the harness stopped answering")
        return json.loads(line)


def _describe(status):
    code = os.waitstatus_to_exitcode(status)
    return f"exit {code}" if code >= 0 else f"killed by signal {-code}"


class Child:
    """A forked process that runs ``body(link)``: the code under test runs there, never in the
    parent. It closes the private channel first, then the parent's pipe ends, and reports back
    on its own pipe; the parent alone writes the verdict."""

    def __init__(self, nonce, body):
        self.nonce, self.buffer, self.status = nonce.encode(), b"", None
        replies_r, self.replies_w = os.pipe()
        self.reports_r, reports_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            for fd in (OUT_FD, IN_FD, self.replies_w, self.reports_r):
                if fd >= 0:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            try:
                os.setpgid(0, 0)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                if HERE is not None:
                    sys.path.insert(0, HERE)
                body(Link(nonce, replies_r, reports_w))
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except BaseException:
                        pass
                os._exit(0)
        os.close(replies_r)
        os.close(reports_w)
        os.set_blocking(self.replies_w, False)
        try:
            self.pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def send(self, message, deadline):
        """Write one reply; False when the child is gone or stopped reading by ``deadline``."""
        data = (json.dumps(message) + "\n").encode()
        while data:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            if not select.select([], [self.replies_w], [], wait)[1]:
                return False
            try:
                data = data[os.write(self.replies_w, data) :]
            except BlockingIOError:
                pass
            except OSError:
                return False
        return True

    def recv(self, deadline):
        """The child's next report (a dict), or an Ended saying why there is none. Anything
        but that, or no report by ``deadline`` (monotonic; None: no limit), stops the child."""
        while True:
            line, newline, rest = self.buffer.partition(b"\n")
            if newline:
                self.buffer = rest
                message = None
                if line.startswith(self.nonce):
                    try:
                        message = json.loads(line[len(self.nonce) :])
                    except ValueError:
                        pass
                if isinstance(message, dict):
                    return message
                return self.stop("forged", "a report not in the harness's form")
            if len(self.buffer) > LINE_CAP:
                return self.stop("forged", "a report longer than the harness writes")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                return self.stop("late", "it ran past its time limit")
            if self.pidfd is None:  # no pidfd: poll for its end
                wait = 0.05 if wait is None else min(wait, 0.05)
            watch = [self.reports_r] + ([] if self.pidfd is None else [self.pidfd])
            ready = select.select(watch, [], [], wait)[0]
            if self.reports_r in ready:
                chunk = os.read(self.reports_r, 65536)
                if chunk:
                    self.buffer += chunk
                    continue
                return self.stop("ended", self._ended(0.2))
            if self.pidfd in ready or (self.pidfd is None and self._ended(0)):
                # A report written just before the end may have landed after select looked.
                if select.select([self.reports_r], [], [], 0)[0]:
                    continue
                return self.stop("ended", self._ended(0))

    def _ended(self, patience):
        """The child's end, as text, once it has exited within ``patience`` seconds; else ""."""
        until = time.monotonic() + patience
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
            elif time.monotonic() >= until:
                return ""
            else:
                time.sleep(0.005)
        return f"the process ended ({_describe(self.status)})"

    def stop(self, kind="ended", why=""):
        """Kill the child and its process group, reap it, close the pipes (once); an Ended."""
        if self.reports_r >= 0:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
            if self.status is None:
                self.status = os.waitpid(self.pid, 0)[1]
            for fd in (self.pidfd, self.reports_r, self.replies_w):
                if fd is not None:
                    os.close(fd)
            self.pidfd, self.reports_r, self.replies_w = None, -1, -1
        return Ended(kind, why or "the process closed the harness's pipe")
'''
"""Shared by the harnesses that run code under test in the sandbox and must not let it write
their verdict: :data:`TEST_RUNNER_CODE` and :mod:`tools.check_runner`'s.

The trusted parent (the sandbox's pid 1) reads its inputs from a private fd (``sys.argv[1]``)
and writes its verdict to another (``sys.argv[2]``, :attr:`ExecResult.report`); neither is
stdout or stderr. It makes itself non-dumpable, then forks a :class:`Child` that closes both
first, imports the code under test and reports raw outcomes in lines prefixed by the run's
nonce; the parent judges them. Run without the two fds (``exec`` in a plain process, as a
test's driver does), there is no verdict but the exit code and stdout, and no hardening."""

TEST_RUNNER_CODE = (
    HARNESS_LIB
    + r'''
import ast, importlib, inspect, io, pathlib, traceback, unittest

TEXT_CHARS = 4000


def _bound(statements):
    """Names the statements bind other than by def or class: assigned, imported, deleted."""
    names = set()
    for node in statements:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                         and not isinstance(n.ctx, ast.Load))
    return names


def _defs(statements, rebound):
    """Each name def'd or class'd once, undecorated and never rebound: name -> node."""
    seen = {}
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            seen.setdefault(node.name, []).append(node)
    return {
        name: nodes[0]
        for name, nodes in seen.items()
        if len(nodes) == 1 and not nodes[0].decorator_list and name not in rebound
    }


def _base_name(node):
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def planned(path, name):
    """The tests a module defines on its face, read (never imported) before any child runs:
    each must report, so a child that dies or stops early fails the ones it never reached."""
    try:
        tree = compile(path.read_bytes(), str(path), "exec", ast.PyCF_ONLY_AST)  # in the sandbox
    except (SyntaxError, ValueError, OSError):
        return set()
    rebound = _bound(tree.body)
    tests = set()
    for attr, node in _defs(tree.body, rebound).items():
        if isinstance(node, ast.ClassDef):
            if "load_tests" in rebound or not any(
                _base_name(b).endswith("TestCase") for b in node.bases
            ):
                continue
            inner = _defs(node.body, _bound(node.body))
            tests.update(
                f"{name}.{attr}.{method}"
                for method, sub in inner.items()
                if method.startswith("test") and not isinstance(sub, ast.ClassDef)
            )
        elif attr.startswith("test"):
            tests.add(f"{name}::{attr}")
    return tests


def _reporting(report):
    class Reporting(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            report(test.id(), "pass")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            report(test.id(), "fail", self._exc_info_to_string(err, test))

        def addError(self, test, err):
            super().addError(test, err)
            report(test.id(), "fail", self._exc_info_to_string(err, test))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            report(test.id(), "skip", str(reason))

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            report(test.id(), "pass")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            report(test.id(), "fail", "unexpected success")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                report(test.id(), "fail", self._exc_info_to_string(err, subtest))

    return Reporting


def test_module(link, name):
    """In the child: import one test module and run its tests, reporting each outcome."""

    def report(test_id, outcome, text=""):
        link.send({"id": test_id, "outcome": outcome, "text": text[-TEXT_CHARS:]})

    try:
        module = importlib.import_module(name)
    except BaseException:
        report(name, "import-error", traceback.format_exc())
        link.send({"done": True})
        return
    for attr, fn in sorted(vars(module).items()):
        if attr.startswith("test") and inspect.isfunction(fn) and fn.__module__ == name:
            try:
                fn()
            except BaseException:
                report(f"{name}::{attr}", "fail", traceback.format_exc())
            else:
                report(f"{name}::{attr}", "pass")
    try:
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        if suite.countTestCases():
            runner = unittest.TextTestRunner(stream=io.StringIO(), resultclass=_reporting(report))
            runner.run(suite)
    except BaseException:
        report(name, "error", traceback.format_exc())
    link.send({"done": True})


OUTCOMES = ("pass", "fail", "skip", "import-error", "error")


def run_module(nonce, name, plan, deadline):
    """(passed, failed) of one test module, run in its own child."""
    child = Child(nonce, lambda link: test_module(link, name))
    seen, errors, ended = {}, 0, None
    while True:
        message = child.recv(deadline)
        if isinstance(message, Ended):
            ended = message
            break
        if message.get("done") is True:
            child.stop()
            break
        test_id, outcome, text = message.get("id"), message.get("outcome"), message.get("text")
        if not (isinstance(test_id, str) and outcome in OUTCOMES and isinstance(text, str)):
            ended = child.stop("forged", "a report not in the harness's form")
            break
        if outcome == "import-error":
            print(f"ERROR {name} (import)", flush=True)
            print(text, file=sys.stderr, flush=True)
            child.stop()
            return 0, 1
        if outcome == "error":
            errors += 1
            print(f"ERROR {test_id}", flush=True)
        else:
            print(f"{outcome.upper()} {test_id}", flush=True)
            seen[test_id] = "fail" if "fail" in (outcome, seen.get(test_id)) else outcome
        if text and outcome != "skip":
            print(text, file=sys.stderr, flush=True)
    missing = sorted(plan - seen.keys())
    for test_id in missing:
        print(f"FAIL {test_id} (it never reported)", flush=True)
    failed = errors + len(missing) + sum(1 for v in seen.values() if v == "fail")
    if ended is not None:
        print(f"ERROR {name} ({ended.why})", flush=True)
        failed += 0 if missing else 1
    return sum(1 for v in seen.values() if v == "pass"), failed


def main():
    deadline = None
    if PRIVATE:
        harden()
        config = read_frame()
        close_input()
        nonce = config["nonce"]
        if config.get("budget_s"):
            deadline = time.monotonic() + config["budget_s"]
    else:
        nonce = os.urandom(16).hex()
    modules = []
    for path in sorted(pathlib.Path(".").rglob("test_*.py")):
        name = ".".join(path.with_suffix("").parts)
        modules.append((name, planned(path, name)))
    passed = failed = 0
    for name, plan in modules:
        if deadline is not None and time.monotonic() >= deadline:
            print(f"ERROR {name} (not run: the time limit was reached)", flush=True)
            failed += max(len(plan), 1)
            continue
        done = run_module(nonce, name, plan, deadline)
        passed, failed = passed + done[0], failed + done[1]
    print(f"RESULT passed={passed} failed={failed}", flush=True)
    if PRIVATE:
        write_verdict({"passed": passed, "failed": failed})
    sys.exit(1 if failed or not passed else 0)


main()
'''
)
"""The built-in test runner: every ``test_*`` function of every ``test_*.py`` module (pytest
style) and its ``unittest`` cases. The counts are the trusted parent's (see
:data:`HARNESS_LIB`): each module's tests run in a forked child that reports each outcome, and
a test planned from the module's source that never reports (the child exited, was killed,
forged a report or ran out of time) counts as failed. PASS/FAIL lines on stdout (the tracebacks
on stderr) and the closing ``RESULT passed=N failed=M`` line are for people, printed by the
parent from the reports; :func:`test_counts` reads the verdict from the private channel."""


class SandboxUnavailable(RuntimeError):
    """The isolation the sandbox relies on is missing, so nothing was run."""


class ExecResult(BaseModel):
    """Outcome of one sandboxed run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    killed_reason: KilledReason | None
    duration_s: float
    output_truncated: bool = False
    report: str | None = None
    """What the code wrote on its private report channel (``run_python(private=...)``), which
    the code's own children cannot write; None when the run had no such channel."""
    memory_scope: MemoryScope = "process"
    """What ``memory_mb`` limited: "sandbox", all of the run's processes together (a memory
    cgroup, :attr:`memory_limit_bytes`), plus each process's ``RLIMIT_AS``; "process", only
    each process on its own (no memory cgroup could be made: N processes may hold N times
    ``memory_mb``)."""
    memory_limit_bytes: int | None = None
    """The memory cgroup's limit for the whole sandbox; None when ``memory_scope`` is
    "process"."""
    peak_memory_bytes: int | None = None
    """The most the memory cgroup held at once (the kernel's peak for the group, files in the
    sandbox's tmpfs and the kernel memory charged to it included); None without a group or
    where the kernel keeps no peak."""


@dataclass(frozen=True)
class SandboxConfig:
    """Host-side settings of the sandbox; the defaults suit the coder agent."""

    bwrap_path: str = "bwrap"
    python_prefix: Path | None = None
    extra_python_paths: tuple[Path, ...] = ()
    max_output_bytes: int = 1_000_000
    max_processes: int = 32
    max_open_files: int = 64
    work_dir_mb: int = 64
    shm_mb: int = 16
    cpu_time_s: int | None = None  # default: the wall-clock timeout rounded up, plus 1
    cgroup_root: Path = field(default=Path("/sys/fs/cgroup"))


def run_python(
    code: str,
    *,
    files: Mapping[str, str | bytes] | None = None,
    timeout_s: float = 10,
    memory_mb: int = 256,
    config: SandboxConfig | None = None,
    private: bytes | None = None,
    site: bool = True,
) -> ExecResult:
    """Run ``code`` as ``/work/main.py`` in a fresh sandbox next to ``files``.

    ``private``: open a private channel, for a harness that must keep its inputs and verdict
    away from the code it runs. ``code`` then starts with two more open fds, their numbers in
    ``sys.argv[1]`` and ``sys.argv[2]``: the first reads ``private`` (a memfd: no path, in no
    file the sandbox can open), the second is a pipe whose contents come back as
    :attr:`ExecResult.report`. The code must close both in whatever it forks to run untrusted
    code (and make itself non-dumpable, or /proc/<pid>/fd reopens them): see
    :data:`HARNESS_LIB`.

    ``site``: start the code as ``python`` does (``site`` imported, every ``.pth`` file of the
    interpreter's site-packages run); False starts it with ``-S``: the stdlib and
    ``PYTHONPATH`` (``SandboxConfig.extra_python_paths``) only, for a harness that adds the
    site-packages directories itself where its code under test runs (the check runner's).

    Raises:
        SandboxUnavailable: the sandbox could not be set up; the code did not run.
        ValueError: a file name is not a plain relative path or the inputs are too big.
    """
    cfg = config or SandboxConfig()
    if timeout_s <= 0 or memory_mb < 64:
        raise ValueError("timeout_s must be positive and memory_mb at least 64")
    bwrap = _find_bwrap(cfg.bwrap_path)
    python = _find_python(cfg)
    with tempfile.TemporaryDirectory(prefix="edgeswarm-sbx-") as input_dir:
        _write_inputs(Path(input_dir), code, files or {})
        with _run_cgroups(cfg, memory_mb) as cgroups:
            limits = _limits(cfg, timeout_s, memory_mb)
            return _execute(
                bwrap, python, Path(input_dir), cfg, cgroups, timeout_s, limits, private, site
            )


def run_tests(
    files: Mapping[str, str | bytes],
    *,
    timeout_s: float = 20,
    memory_mb: int = 256,
    config: SandboxConfig | None = None,
) -> ExecResult:
    """Run every ``test_*.py`` in ``files`` with the built-in runner; exit 0 iff all pass.

    The counts come back on the private channel (:func:`test_counts`); stdout is for people.
    """
    config_frame = json.dumps(
        # The runner stops short of the sandbox's timeout, to report what it has by then.
        {"nonce": secrets.token_hex(16), "budget_s": max(timeout_s * 0.9 - 0.3, timeout_s / 2)}
    )
    return run_python(
        TEST_RUNNER_CODE,
        files=files,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        config=config,
        private=private_frames(config_frame),
    )


def private_frames(*frames: str) -> bytes:
    """``frames`` as the private input :data:`HARNESS_LIB`'s ``read_frame`` reads in turn."""
    return b"".join(f"{len(f.encode()):016d}".encode() + f.encode() for f in frames)


def test_counts(result: ExecResult) -> tuple[int, int]:
    """(passed, failed) as the test runner's trusted parent reported them; (0, 1) without that.

    Read from the private channel of ``result`` (a :func:`run_tests` run), never from stdout,
    where the code under test can print anything.
    """
    try:
        data = json.loads(result.report or "")
        passed, failed = data["passed"], data["failed"]
    except (ValueError, TypeError, KeyError):
        return (0, 1)
    ok = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (passed, failed))
    return (passed, failed) if ok else (0, 1)


def _find_bwrap(path: str) -> str:
    found = shutil.which(path)
    if found is None:
        raise SandboxUnavailable(
            f"bubblewrap not found at {path!r}; install the Debian package 'bubblewrap'"
        )
    return found


def _find_python(cfg: SandboxConfig) -> Path:
    # A venv's interpreter only works next to its pyvenv.cfg, so use the base install.
    prefix = (cfg.python_prefix or Path(sys.base_prefix)).resolve()
    exe = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not exe.is_file():
        raise SandboxUnavailable(f"no base interpreter at {exe}")
    return prefix


def _write_inputs(root: Path, code: str, files: Mapping[str, str | bytes]) -> None:
    if len(files) > _MAX_FILES:
        raise ValueError(f"at most {_MAX_FILES} files")
    total = len(code.encode())
    (root / _MAIN).write_text(code, encoding="utf-8")
    for name, content in files.items():
        rel = _safe_relative(name)
        target = root.joinpath(*rel.parts)
        if target.exists():
            raise ValueError(f"duplicate or reserved file name: {name!r}")
        data = content if isinstance(content, bytes) else content.encode()
        total += len(data)
        if total > _MAX_INPUT_BYTES:
            raise ValueError(f"inputs exceed {_MAX_INPUT_BYTES} bytes")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)  # text as UTF-8; bytes (a project's SQLite file) as they are


def _safe_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if not name or "\0" in name or rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"file name must be a relative path inside the work dir: {name!r}")
    return rel


@dataclass(frozen=True)
class _Cgroups:
    """The cgroups one run joins before bwrap starts.

    ``pids`` (as root, where RLIMIT_NPROC is not enforced) and ``memory`` (where one can be
    made); under cgroup v2 both may be the same group. ``memory_limit`` is ``memory``'s limit
    in bytes.
    """

    pids: Path | None = None
    memory: Path | None = None
    memory_limit: int | None = None

    @property
    def groups(self) -> list[Path]:
        return list(dict.fromkeys(g for g in (self.pids, self.memory) if g is not None))

    def memory_outcome(self) -> tuple[int, int | None]:
        """(OOM kills in the memory group, its peak usage in bytes or None); (0, None) without.

        Read after the run and before the group is destroyed.
        """
        if self.memory is None:
            return 0, None
        if (self.memory / "memory.oom_control").exists():  # v1
            kills = _counter(self.memory / "memory.oom_control", "oom_kill")
            return kills, _read_int(self.memory / "memory.max_usage_in_bytes")
        kills = _counter(self.memory / "memory.events", "oom_kill")
        return kills, _read_int(self.memory / "memory.peak")  # v2, Linux 5.19 and later


_process_scope_warned = False


@contextlib.contextmanager
def _run_cgroups(cfg: SandboxConfig, memory_mb: int) -> Iterator[_Cgroups]:
    """Fresh cgroups for one run, destroyed (every process left in them killed) on the way out.

    As root a pids cgroup is required (RLIMIT_NPROC does not apply to uid 0): without one,
    :class:`SandboxUnavailable`. A memory cgroup holding the whole sandbox to ``memory_mb`` plus
    its tmpfs caps and :data:`_MEMORY_OVERHEAD_MB` (swap off where the kernel has the knob) is
    made as root wherever one can be; where none can (or not as root), the run goes on with
    each process's ``RLIMIT_AS`` alone, and that is logged once per process.
    """
    own = _own_cgroups()
    name = f"edgeswarm-sandbox-{uuid.uuid4().hex[:12]}"
    limit = (memory_mb + cfg.work_dir_mb + cfg.shm_mb + _MEMORY_OVERHEAD_MB) * 1024 * 1024
    with contextlib.ExitStack() as stack:
        pids = None
        if os.geteuid() == 0:
            pids = _make_pids_cgroup(cfg, own, name)
            stack.callback(_destroy_cgroup, pids)
        if os.geteuid() == 0:
            memory, why = _make_memory_cgroup(cfg, own, name, limit, pids)
        else:
            # A user's delegated cgroup (systemd on v2) may let us make a group and then refuse
            # the join, which would stop every run; like the pids cgroup, root only.
            memory, why = None, "not running as root"
        if memory is None:
            _warn_process_scope(why, memory_mb)
        elif memory != pids:
            stack.callback(_destroy_cgroup, memory)
        yield _Cgroups(pids, memory, None if memory is None else limit)


def _make_pids_cgroup(cfg: SandboxConfig, own: list[tuple[str, str]], name: str) -> Path:
    parent = _cgroup_parent(cfg.cgroup_root, own, "pids")
    if parent is None:
        raise SandboxUnavailable(
            "running as root, where RLIMIT_NPROC is not enforced, and no writable pids "
            f"cgroup was found under {cfg.cgroup_root}; refusing to run without a process cap"
        )
    group = parent / name
    try:
        group.mkdir()
        # bwrap's outer process lives in the group too.
        (group / "pids.max").write_text(str(cfg.max_processes + 1))
    except OSError as exc:
        with contextlib.suppress(OSError):
            group.rmdir()
        raise SandboxUnavailable(f"cannot create pids cgroup {group}: {exc}") from exc
    return group


def _make_memory_cgroup(
    cfg: SandboxConfig, own: list[tuple[str, str]], name: str, limit: int, pids: Path | None
) -> tuple[Path | None, str]:
    """(the run's memory cgroup, "") or (None, why there is none).

    Under cgroup v2 the pids group doubles as the memory group when both controllers are
    enabled at the same place.
    """
    parent = _cgroup_parent(cfg.cgroup_root, own, "memory")
    if parent is None:
        return None, f"no writable memory cgroup under {cfg.cgroup_root}"
    shared = pids is not None and pids.parent == parent
    group = pids if shared and pids is not None else parent / name
    try:
        if not shared:
            group.mkdir()
        if (group / "memory.limit_in_bytes").exists():  # v1
            (group / "memory.limit_in_bytes").write_text(str(limit))
            knob, no_swap = group / "memory.memsw.limit_in_bytes", str(limit)
        elif (group / "memory.max").exists():  # v2
            (group / "memory.max").write_text(str(limit))
            knob, no_swap = group / "memory.swap.max", "0"
        else:
            raise OSError(f"{group} has no memory limit to set")
        # Absent where the kernel does not account swap; a limit that leaves swap open still
        # holds the sandbox's RAM, so a knob that refuses the write is not worth losing it for.
        with contextlib.suppress(OSError):
            if knob.exists():
                knob.write_text(no_swap)
        if not os.access(group / "cgroup.procs", os.W_OK):
            raise OSError(f"{group / 'cgroup.procs'} is not writable")
    except OSError as exc:
        if not shared:
            with contextlib.suppress(OSError):
                group.rmdir()
        return None, f"cannot set up memory cgroup {group}: {exc}"
    return group, ""


def _warn_process_scope(why: str, memory_mb: int) -> None:
    global _process_scope_warned
    if not _process_scope_warned:
        _process_scope_warned = True
        log.warning(
            "sandbox.memory_per_process",
            why=why,
            memory_mb=memory_mb,
            detail="memory_mb limits each sandboxed process, not the sandbox as a whole",
        )


def _own_cgroups() -> list[tuple[str, str]]:
    """(controllers, path) of each cgroup this process is in, from ``/proc/self/cgroup``."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    return [(parts[1], parts[2]) for parts in (line.split(":", 2) for line in lines)]


def _cgroup_parent(root: Path, own: list[tuple[str, str]], controller: str) -> Path | None:
    """This process's own group for ``controller``, if the run's group can be made in it.

    v1: the group in that controller's hierarchy; v2: the unified group, where it enables
    ``controller`` for its children. Both must be writable, ``cgroup.procs`` too (to join).
    """
    for controllers, rel in own:
        if controller in controllers.split(","):
            candidate = root / controller / rel.lstrip("/")
        elif controllers == "":
            candidate = root / rel.lstrip("/")
            try:
                enabled = (candidate / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if controller not in enabled:
                continue
        else:
            continue
        procs = candidate / "cgroup.procs"
        if procs.exists() and os.access(candidate, os.W_OK) and os.access(procs, os.W_OK):
            return candidate
    return None


def _counter(path: Path, key: str) -> int:
    """The value of ``key`` in a flat-keyed cgroup file (``key value`` lines); 0 if absent."""
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def _read_int(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text())
    return None


def _kill_cgroup(group: Path) -> None:
    with contextlib.suppress(OSError):
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


def _destroy_cgroup(group: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _kill_cgroup(group)
        try:
            group.rmdir()
        except OSError:
            time.sleep(0.01)
        else:
            return
    log.warning("sandbox.cgroup_leak", cgroup=str(group))


def _limits(cfg: SandboxConfig, timeout_s: float, memory_mb: int) -> list[tuple[str, int]]:
    return [
        ("RLIMIT_AS", memory_mb * 1024 * 1024),
        ("RLIMIT_CPU", cfg.cpu_time_s or math.ceil(timeout_s) + 1),
        ("RLIMIT_NOFILE", cfg.max_open_files),
        ("RLIMIT_NPROC", cfg.max_processes),
        ("RLIMIT_FSIZE", cfg.work_dir_mb * 1024 * 1024),
        ("RLIMIT_CORE", 0),
    ]


def _bwrap_argv(bwrap: str, prefix: Path, input_dir: Path, cfg: SandboxConfig) -> list[str]:
    argv = [
        bwrap,
        *("--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net"),
        *("--unshare-uts", "--unshare-cgroup", "--disable-userns"),
        # The code runs as pid 1, so the namespace (every orphan included) ends with it;
        # bwrap's own reaper would instead wait for the last orphan to exit.
        *("--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL"),
        *("--uid", str(_SANDBOX_UID), "--gid", str(_SANDBOX_UID)),
        *("--ro-bind", "/usr", "/usr"),
        *("--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"),
        *("--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"),
        *("--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"),
        *("--ro-bind-try", "/etc/ld.so.conf", "/etc/ld.so.conf"),
        *("--ro-bind-try", "/etc/ld.so.conf.d", "/etc/ld.so.conf.d"),
        *("--proc", "/proc", "--dev", "/dev"),
        *("--size", str(cfg.shm_mb * 1024 * 1024), "--tmpfs", _SHM),
        *("--size", str(cfg.work_dir_mb * 1024 * 1024), "--tmpfs", _WORK),
        *("--symlink", _WORK, _TMP, "--ro-bind", str(input_dir), _INPUT),
        *("--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", _WORK),
        *("--setenv", "TMPDIR", _WORK, "--setenv", "LANG", "C.UTF-8"),
        *("--setenv", "PYTHONUNBUFFERED", "1", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"),
    ]
    if prefix != Path("/usr") and not prefix.is_relative_to("/usr"):
        # Relocate the interpreter so its real host path (maybe under /root) stays hidden;
        # LD_LIBRARY_PATH wins over an absolute RUNPATH pointing at the old location.
        argv += ["--ro-bind", str(prefix), _PY_MOUNT]
        argv += ["--setenv", "LD_LIBRARY_PATH", f"{_PY_MOUNT}/lib"]
    extra = [f"/opt/pythonpath/{i}" for i in range(len(cfg.extra_python_paths))]
    for src, dest in zip(cfg.extra_python_paths, extra, strict=True):
        argv += ["--ro-bind", str(src), dest]
    if extra:
        argv += ["--setenv", "PYTHONPATH", ":".join(extra)]
    return [*argv, "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", _WORK]


def _sandbox_python(prefix: Path) -> str:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    inside = prefix if prefix.is_relative_to("/usr") else Path(_PY_MOUNT)
    return str(inside / "bin" / version)


def _execute(
    bwrap: str,
    prefix: Path,
    input_dir: Path,
    cfg: SandboxConfig,
    cgroups: _Cgroups,
    timeout_s: float,
    limits: list[tuple[str, int]],
    private: bytes | None,
    site: bool = True,
) -> ExecResult:
    with contextlib.ExitStack() as stack:
        ready_r, ready_w = os.pipe()
        ready = stack.enter_context(os.fdopen(ready_r, "rb"))
        child_ends = [ready_w]  # closed here once the child has them
        try:
            args: list[str] = []
            report: int | None = None
            if private is not None:
                source, report, report_w = _private_channel(private)
                stack.callback(os.close, report)
                child_ends += [source, report_w]
                args = [str(source), str(report_w)]
            boot = _BOOTSTRAP.format(
                input=_INPUT,
                work=_WORK,
                limits=limits,
                fd=ready_w,
                token=_READY_TOKEN,
                main=_MAIN,
                flags=[] if site else ["-S"],
                args=args,
            )
            argv = [
                *_bwrap_argv(bwrap, prefix, input_dir, cfg),
                *(_sandbox_python(prefix), "-I", "-S", "-c", boot),
            ]
            if cgroups.groups:
                procs = [str(group / "cgroup.procs") for group in cgroups.groups]
                argv = [*_JOIN_CGROUP, *procs, "--", *argv]
            start = time.monotonic()
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={"PATH": "/usr/bin:/bin"},  # bwrap's own env is readable via /proc/1/environ
                pass_fds=tuple(child_ends),
                start_new_session=True,
            )
        finally:
            for fd in child_ends:
                os.close(fd)
        with proc:
            return _supervise(proc, ready, report, cfg, cgroups, start, timeout_s)
    raise AssertionError("unreachable")  # pragma: no cover


def _private_channel(data: bytes) -> tuple[int, int, int]:
    """(input, report's read end, report's write end): the input a memfd holding ``data``."""
    source = os.memfd_create("edgeswarm-private")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(source, view) :]
        os.lseek(source, 0, os.SEEK_SET)
        report_r, report_w = os.pipe()
    except BaseException:
        os.close(source)
        raise
    return source, report_r, report_w


def _read_ready(ready: IO[bytes]) -> bool:
    # Non-blocking: a straggler still holding the write end must not hang the caller.
    os.set_blocking(ready.fileno(), False)
    try:
        return os.read(ready.fileno(), len(_READY_TOKEN)) == _READY_TOKEN
    except BlockingIOError:
        return False


def _supervise(
    proc: subprocess.Popen[bytes],
    ready: IO[bytes],
    report_fd: int | None,
    cfg: SandboxConfig,
    cgroups: _Cgroups,
    start: float,
    timeout_s: float,
) -> ExecResult:
    deadline = start + timeout_s
    if proc.stdout is None or proc.stderr is None:
        raise RuntimeError("sandbox pipes missing")
    streams = (proc.stdout.fileno(), proc.stderr.fileno())
    out, err, report, reason = _pump(streams, report_fd, deadline, cfg.max_output_bytes)
    if reason is None:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            reason = "timeout"
    if reason is not None:
        _kill(proc, cgroups)
    rc = proc.wait()
    started = _read_ready(ready)
    stderr = err.decode("utf-8", "replace")
    if not started and reason is None:
        raise SandboxUnavailable(f"sandbox setup failed (exit {rc}): {stderr.strip()[-2000:]}")
    # The sandbox's pid 1 has exited and its pid namespace with it: the counters are final.
    oom_kills, peak = cgroups.memory_outcome()
    result = ExecResult(
        exit_code=rc,
        stdout=out.decode("utf-8", "replace"),
        stderr=stderr,
        timed_out=reason == "timeout",
        # An OOM kill in the group is the kernel's: without it, pid 1 killed by SIGKILL would
        # read as the CPU limit and a killed child as nothing at all.
        killed_reason=reason or ("memory_limit" if oom_kills else _exit_reason(rc, stderr)),
        duration_s=round(time.monotonic() - start, 3),
        output_truncated=reason == "output_limit",
        report=None if report_fd is None else report.decode("utf-8", "replace"),
        memory_scope="process" if cgroups.memory is None else "sandbox",
        memory_limit_bytes=cgroups.memory_limit,
        peak_memory_bytes=peak,
    )
    log.info(
        "sandbox.run",
        exit_code=rc,
        killed=result.killed_reason,
        secs=result.duration_s,
        **({"oom_kills": oom_kills} if oom_kills else {}),
    )
    return result


def _pump(
    streams: tuple[int, int], report_fd: int | None, deadline: float, cap: int
) -> tuple[bytes, bytes, bytes, KilledReason | None]:
    """Read stdout, stderr and the report channel until EOF, the deadline or the output cap.

    The cap holds for stdout and stderr together and for the report on its own.
    """
    fds = (*streams, *(() if report_fd is None else (report_fd,)))
    bufs = {fd: bytearray() for fd in fds}
    totals = dict.fromkeys(fds, 0)
    reason: KilledReason | None = None
    with selectors.DefaultSelector() as sel:
        for fd in fds:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map() and reason is None:
            remaining = deadline - time.monotonic()
            events = sel.select(remaining) if remaining > 0 else []
            reason = "timeout" if remaining <= 0 else None
            for key, _ in events:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                group = (key.fd,) if key.fd == report_fd else streams
                used = sum(totals[fd] for fd in group)
                # Keep at most `cap` bytes in memory; more than that ends the run.
                bufs[key.fd] += chunk[: max(cap - used, 0)]
                totals[key.fd] += len(chunk)
                reason = "output_limit" if used + len(chunk) > cap else reason
    report = b"" if report_fd is None else bytes(bufs[report_fd])
    return bytes(bufs[streams[0]]), bytes(bufs[streams[1]]), report, reason


def _kill(proc: subprocess.Popen[bytes], cgroups: _Cgroups) -> None:
    # bwrap leads its own process group; once it dies, --die-with-parent kills the
    # sandbox's pid 1 and with it the whole pid namespace.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for group in cgroups.groups:
        _kill_cgroup(group)


def _exit_reason(rc: int, stderr: str) -> KilledReason | None:
    # bwrap reports a child killed by signal N as exit code 128 + N. The code runs as the
    # namespace's pid 1, which nothing inside may SIGKILL, and we did not kill it, so a
    # SIGKILL came from the kernel: the hard RLIMIT_CPU.
    if rc == 128 + signal.SIGKILL:
        return "cpu_limit"
    if rc != 0 and "MemoryError" in stderr[-4000:]:
        return "memory_limit"
    if 128 < rc <= 128 + 64:
        return "signal"
    return None
