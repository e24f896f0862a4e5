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
  an unprivileged process cannot raise a hard limit again. The process count is capped
  by ``RLIMIT_NPROC`` for a non-root caller; because the kernel never applies
  ``RLIMIT_NPROC`` to uid 0, a root caller additionally puts the sandbox in a fresh
  ``pids`` cgroup (v1 or v2) and refuses to run when it cannot. Output is read
  incrementally and the sandbox is killed once it exceeds the cap. The wall-clock timeout
  kills bwrap's process group; ``--die-with-parent`` then kills the code, which runs as
  pid 1 of its own pid namespace (``--as-pid-1``), so the kernel takes down every other
  process in the sandbox with it, orphans and daemons included (the same happens when
  the code exits normally). In the root case every pid left in the cgroup is killed too.
* Privilege: the child runs as uid 65534 inside a new user namespace with all
  capabilities dropped, ``no_new_privs`` set by bwrap, a new session (no TIOCSTI into the
  caller's terminal) and no way to create further user namespaces.

Fail closed: if bwrap is missing, a namespace cannot be created, a mount fails, a limit
cannot be set or (as root) no pids cgroup is available, :class:`SandboxUnavailable` is
raised and the code is never run. A run counts as started only after the in-sandbox
bootstrap has applied every limit and reported back on a private pipe.

Out of scope: kernel exploits (there is no seccomp filter, so the full syscall surface
of an unprivileged user namespace is reachable), timing side channels, and the host
paths visible in ``/proc/self/mountinfo``. Code inside can read everything under
``/usr``, which is assumed to hold no secrets.

Imports: the interpreter's own stdlib and site-packages are visible. pytest is only
importable if installed there or if its site-packages directory is listed in
``SandboxConfig.extra_python_paths`` (bound read-only); :func:`run_tests` instead uses a
tiny built-in runner for pytest-style ``test_*`` functions and ``unittest`` cases.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
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
    "TEST_RUNNER_CODE",
    "ExecResult",
    "SandboxConfig",
    "SandboxUnavailable",
    "run_python",
    "run_tests",
    "test_counts",
]

log = structlog.get_logger(__name__)

KilledReason = Literal["timeout", "output_limit", "cpu_limit", "memory_limit", "signal"]

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
_JOIN_CGROUP = ("/bin/sh", "-c", 'echo 0 > "$0" && exec "$@"')
"""Run as ``[*_JOIN_CGROUP, cgroup.procs, *argv]``: the shell writes "0" to the group's
``cgroup.procs`` (which moves the writer, itself) and then becomes bwrap. No ``preexec_fn``, so
subprocess can spawn with vfork: forking the caller instead copied its page tables under the
GIL, with every thread stopped, which grew with its heap (60 runs from a process holding a
700 MB heap took 4.4 s instead of 3.1; a test process that had run the gateway state machine
ran the 50-run swarm load test twice as slowly)."""

# Runs inside the sandbox before the user's code: copy the inputs into the tmpfs work dir,
# set hard limits, report readiness on the private fd, close it and exec the user's code.
_BOOTSTRAP = """\
import os, resource, shutil, sys
shutil.copytree({input!r}, {work!r}, dirs_exist_ok=True)
for name, value in {limits!r}:
    resource.setrlimit(getattr(resource, name), (value, value))
os.write({fd}, {token!r})
os.close({fd})
os.execv(sys.executable, [sys.executable, {main!r}])
"""

TEST_RUNNER_CODE = """\
import importlib, inspect, pathlib, sys, traceback, unittest
passed = failed = 0
for path in sorted(pathlib.Path('.').rglob('test_*.py')):
    name = '.'.join(path.with_suffix('').parts)
    try:
        module = importlib.import_module(name)
    except Exception:
        failed += 1
        print(f'ERROR {name} (import)')
        traceback.print_exc()
        continue
    for attr, fn in sorted(vars(module).items()):
        if attr.startswith('test') and inspect.isfunction(fn) and fn.__module__ == name:
            try:
                fn()
            except Exception:
                failed += 1
                print(f'FAIL {name}::{attr}')
                traceback.print_exc()
            else:
                passed += 1
                print(f'PASS {name}::{attr}')
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    if suite.countTestCases():
        res = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
        bad = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
        failed += bad
        passed += res.testsRun - bad - len(res.skipped)
print(f'RESULT passed={passed} failed={failed}')
sys.exit(1 if failed or not passed else 0)
"""


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
) -> ExecResult:
    """Run ``code`` as ``/work/main.py`` in a fresh sandbox next to ``files``.

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
        with _process_cgroup(cfg) as cgroup:
            return _execute(bwrap, python, Path(input_dir), cfg, cgroup, timeout_s, memory_mb)


def run_tests(
    files: Mapping[str, str | bytes],
    *,
    timeout_s: float = 20,
    memory_mb: int = 256,
    config: SandboxConfig | None = None,
) -> ExecResult:
    """Run every ``test_*.py`` in ``files`` with the built-in runner; exit 0 iff all pass."""
    return run_python(
        TEST_RUNNER_CODE, files=files, timeout_s=timeout_s, memory_mb=memory_mb, config=config
    )


_RESULT_LINE = re.compile(r"RESULT passed=(\d+) failed=(\d+)")


def test_counts(stdout: str) -> tuple[int, int]:
    """(passed, failed) from :data:`TEST_RUNNER_CODE`'s summary line; (0, 1) when it is missing."""
    found = _RESULT_LINE.search(stdout)
    return (int(found[1]), int(found[2])) if found else (0, 1)


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


@contextlib.contextmanager
def _process_cgroup(cfg: SandboxConfig) -> Iterator[Path | None]:
    """Yield a fresh pids cgroup when running as root (where RLIMIT_NPROC is ignored)."""
    if os.geteuid() != 0:
        yield None
        return
    parent = _pids_cgroup_parent(cfg.cgroup_root)
    if parent is None:
        raise SandboxUnavailable(
            "running as root, where RLIMIT_NPROC is not enforced, and no writable pids "
            f"cgroup was found under {cfg.cgroup_root}; refusing to run without a process cap"
        )
    group = parent / f"edgeswarm-sandbox-{uuid.uuid4().hex[:12]}"
    try:
        group.mkdir()
        # bwrap's outer process lives in the group too.
        (group / "pids.max").write_text(str(cfg.max_processes + 1))
    except OSError as exc:
        with contextlib.suppress(OSError):
            group.rmdir()
        raise SandboxUnavailable(f"cannot create pids cgroup {group}: {exc}") from exc
    try:
        yield group
    finally:
        _destroy_cgroup(group)


def _pids_cgroup_parent(root: Path) -> Path | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, rel = line.split(":", 2)
        if "pids" in controllers.split(","):
            candidate = root / "pids" / rel.lstrip("/")
        elif controllers == "":
            candidate = root / rel.lstrip("/")
            control = candidate / "cgroup.subtree_control"
            if not control.exists() or "pids" not in control.read_text().split():
                continue
        else:
            continue
        if (candidate / "cgroup.procs").exists() and os.access(candidate, os.W_OK):
            return candidate
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
    cgroup: Path | None,
    timeout_s: float,
    memory_mb: int,
) -> ExecResult:
    ready_r, ready_w = os.pipe()
    boot = _BOOTSTRAP.format(
        input=_INPUT,
        work=_WORK,
        limits=_limits(cfg, timeout_s, memory_mb),
        fd=ready_w,
        token=_READY_TOKEN,
        main=_MAIN,
    )
    argv = [*_bwrap_argv(bwrap, prefix, input_dir, cfg), _sandbox_python(prefix), "-I", "-c", boot]
    if cgroup is not None:
        argv = [*_JOIN_CGROUP, str(cgroup / "cgroup.procs"), *argv]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin"},  # bwrap's own env is readable via /proc/1/environ
            pass_fds=(ready_w,),
            start_new_session=True,
        )
    finally:
        os.close(ready_w)
    with proc, os.fdopen(ready_r, "rb") as ready:
        return _supervise(proc, ready, cfg, cgroup, start, timeout_s)


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
    cfg: SandboxConfig,
    cgroup: Path | None,
    start: float,
    timeout_s: float,
) -> ExecResult:
    deadline = start + timeout_s
    if proc.stdout is None or proc.stderr is None:
        raise RuntimeError("sandbox pipes missing")
    out, err, reason = _pump(proc.stdout, proc.stderr, deadline, cfg.max_output_bytes)
    if reason is None:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            reason = "timeout"
    if reason is not None:
        _kill(proc, cgroup)
    rc = proc.wait()
    started = _read_ready(ready)
    stderr = err.decode("utf-8", "replace")
    if not started and reason is None:
        raise SandboxUnavailable(f"sandbox setup failed (exit {rc}): {stderr.strip()[-2000:]}")
    result = ExecResult(
        exit_code=rc,
        stdout=out.decode("utf-8", "replace"),
        stderr=stderr,
        timed_out=reason == "timeout",
        killed_reason=reason or _exit_reason(rc, stderr),
        duration_s=round(time.monotonic() - start, 3),
        output_truncated=reason == "output_limit",
    )
    log.info("sandbox.run", exit_code=rc, killed=result.killed_reason, secs=result.duration_s)
    return result


def _pump(
    stdout: IO[bytes], stderr: IO[bytes], deadline: float, cap: int
) -> tuple[bytes, bytes, KilledReason | None]:
    """Read both pipes until EOF, the deadline or the output cap, whichever comes first."""
    bufs = {stdout.fileno(): bytearray(), stderr.fileno(): bytearray()}
    total = 0
    reason: KilledReason | None = None
    with selectors.DefaultSelector() as sel:
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map() and reason is None:
            remaining = deadline - time.monotonic()
            events = sel.select(remaining) if remaining > 0 else []
            reason = "timeout" if remaining <= 0 else None
            for key, _ in events:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                # Keep at most `cap` bytes in memory; more than that ends the run.
                bufs[key.fd] += chunk[: max(cap - total, 0)]
                total += len(chunk)
                reason = "output_limit" if total > cap else reason
    return bytes(bufs[stdout.fileno()]), bytes(bufs[stderr.fileno()]), reason


def _kill(proc: subprocess.Popen[bytes], cgroup: Path | None) -> None:
    # bwrap leads its own process group; once it dies, --die-with-parent kills the
    # sandbox's pid 1 and with it the whole pid namespace.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    if cgroup is not None:
        _kill_cgroup(cgroup)


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
