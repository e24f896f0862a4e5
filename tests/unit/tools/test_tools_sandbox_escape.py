"""Escape attempts against the sandbox; each test asserts what contained the attempt."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import command_lines
from tools.sandbox import SandboxConfig, run_python

REPO = Path(__file__).resolve().parents[3]
ALLOWED_ENV = {
    "HOME", "LANG", "LD_LIBRARY_PATH", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED", "TMPDIR", "PYTHONPATH",
}  # fmt: skip
MARKER = "317.4242"  # an unusual `sleep` argument that identifies sandbox children


def _processes_with(arg: str) -> list[int]:
    return [pid for pid, argv in command_lines().items() if arg.encode() in argv]


def _wait_gone(arg: str, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := _processes_with(arg)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def loopback_listener() -> Iterator[int]:
    """A TCP server on the host's 127.0.0.1, in a child process (the test may not connect)."""
    code = (
        "import socket\n"
        "s = socket.socket()\n"
        "s.bind(('127.0.0.1', 0))\n"
        "s.listen(8)\n"
        "print(s.getsockname()[1], flush=True)\n"
        "s.settimeout(30)\n"
        "while True:\n"
        "    c, _ = s.accept()\n"
        "    c.sendall(b'hello')\n"
        "    c.close()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_socket_to_host_loopback_is_refused(loopback_listener: int) -> None:
    port = loopback_listener
    # Control: from the host's network namespace the listener answers.
    probe = f"import socket; print(socket.create_connection(('127.0.0.1', {port}), 5).recv(5))"
    control = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=20, check=False
    )
    assert "hello" in control.stdout
    result = run_python(
        f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
        "print('CONNECTED', s.recv(5))\n"
    )
    assert result.exit_code != 0
    assert "ConnectionRefusedError" in result.stderr
    assert "CONNECTED" not in result.stdout


def test_no_network_interfaces_or_routes() -> None:
    code = (
        "import socket\n"
        "print(socket.if_nameindex())\n"
        "print(len(open('/proc/net/route').read().strip().splitlines()) - 1)\n"
        "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        # A UDP connect sends no packet; it only needs a route, and there is none.
        "u.connect(('192.0.2.1', 9))\n"
        "print('ROUTED')\n"
    )
    result = run_python(code)
    assert result.exit_code != 0
    assert "Network is unreachable" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "[(1, 'lo')]"
    assert lines[1] == "0"
    assert "ROUTED" not in result.stdout


def test_writes_outside_work_dir_fail(tmp_path: Path) -> None:
    host_target = tmp_path / "pwned"
    targets = [
        "/usr/pwned", "/pwned", "/etc/pwned", "/opt/pwned", "/run/input/pwned",
        "/proc/pwned", "/dev/pwned", "/work/../pwned", str(host_target),
    ]  # fmt: skip
    code = (
        "import json\nout = {}\n"
        f"for path in {targets!r}:\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        out[path] = 'WROTE'\n"
        "    except OSError as exc:\n"
        "        out[path] = exc.errno\n"
        "open('/work/ok', 'w').write('fine')\n"
        "print(json.dumps(out))\n"
    )
    result = run_python(code)
    assert result.exit_code == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert set(outcome) == set(targets)
    allowed = {errno.EROFS, errno.ENOENT, errno.EACCES, errno.EPERM}
    assert all(value in allowed for value in outcome.values()), outcome
    assert not host_target.exists()


def test_host_secrets_are_invisible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"s3cret-{uuid.uuid4().hex}"
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{secret}\n")
    (home / ".env").write_text(f"TOKEN={secret}\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(f"TOKEN={secret}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("EDGESWARM_TEST_SECRET", secret)
    paths = [
        str(home / ".ssh" / "id_rsa"), str(home / ".env"), str(project / ".env"),
        "/etc/shadow", "/etc/passwd", "/root/.ssh/id_rsa", "/root/.bashrc",
        str(REPO / ".env"), str(REPO / "pyproject.toml"), "~/.ssh/id_rsa",
    ]  # fmt: skip
    code = (
        "import glob, json, os\nfiles = {}\n"
        f"for path in {paths!r}:\n"
        "    try:\n"
        "        files[path] = open(os.path.expanduser(path)).read()\n"
        "    except OSError as exc:\n"
        "        files[path] = type(exc).__name__\n"
        "environs = []\n"
        "for name in glob.glob('/proc/*/environ'):\n"
        "    try:\n"
        "        environs.append(open(name, 'rb').read().decode(errors='replace'))\n"
        "    except OSError:\n"
        "        pass\n"
        "print(json.dumps({'files': files, 'env': sorted(os.environ), 'environs': environs,\n"
        "                  'root': sorted(os.listdir('/')), 'etc': sorted(os.listdir('/etc'))}))\n"
    )
    result = run_python(code)
    assert result.exit_code == 0, result.stderr
    assert secret not in result.stdout + result.stderr
    seen = json.loads(result.stdout)
    assert all(v == "FileNotFoundError" for v in seen["files"].values()), seen["files"]
    assert set(seen["env"]) <= ALLOWED_ENV
    assert seen["environs"], "expected to see at least the sandbox's own /proc/*/environ"
    assert not any("EDGESWARM_TEST_SECRET" in env for env in seen["environs"])
    assert set(seen["root"]) <= {"bin", "dev", "etc", "lib", "lib64", "opt", "proc", "run",
                                 "sbin", "tmp", "usr", "work"}  # fmt: skip
    assert set(seen["etc"]) <= {"ld.so.cache", "ld.so.conf", "ld.so.conf.d"}


def test_fork_count_is_capped() -> None:
    code = (
        "import os, time\nok = 0\nerr = None\n"
        "for _ in range(300):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError as exc:\n"
        "        err = exc.errno\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "    ok += 1\n"
        "print(ok, err)\n"
    )
    config = SandboxConfig(max_processes=16)
    result = run_python(code, config=config, timeout_s=10)
    assert result.exit_code == 0, result.stderr
    forked, err = result.stdout.split()
    assert int(forked) < 16  # the main process counts too
    assert int(err) == errno.EAGAIN
    # The main process exited, so its sleeping children died with the pid namespace.
    assert result.duration_s < 5


def test_fork_bomb_is_contained_and_cleaned_up() -> None:
    code = (
        "import os, subprocess\n"
        f"subprocess.Popen(['sleep', '{MARKER}'])\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        pass\n"
    )
    started = time.monotonic()
    result = run_python(code, timeout_s=3)
    assert result.timed_out
    assert result.killed_reason == "timeout"
    assert time.monotonic() - started < 10
    assert _wait_gone(MARKER) == []


def test_memory_bomb_hits_the_limit() -> None:
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))\n"
    result = run_python(code, memory_mb=128, timeout_s=10)
    assert result.exit_code != 0
    assert result.killed_reason == "memory_limit"
    assert "MemoryError" in result.stderr
    assert not result.timed_out


def test_infinite_loop_times_out_and_kills_the_tree() -> None:
    code = (
        "import subprocess\n"
        f"subprocess.Popen(['sleep', '{MARKER}'], start_new_session=True)\n"
        "while True:\n"
        "    pass\n"
    )
    result = run_python(code, timeout_s=1.5)
    assert result.timed_out
    assert result.killed_reason == "timeout"
    assert result.exit_code != 0
    assert 1.4 <= result.duration_s < 5
    assert _wait_gone(MARKER) == []


def test_cpu_limit_kills_a_busy_loop() -> None:
    result = run_python("while True:\n    pass\n", config=SandboxConfig(cpu_time_s=1), timeout_s=20)
    assert result.killed_reason == "cpu_limit"
    assert not result.timed_out
    assert result.exit_code == 128 + 9


def test_detached_child_does_not_outlive_the_run() -> None:
    # The child keeps stdout open and is in its own session; the pid namespace still ends it.
    code = f"import subprocess\nsubprocess.Popen(['sleep', '{MARKER}'], start_new_session=True)\n"
    result = run_python(code, timeout_s=10)
    assert result.exit_code == 0
    assert not result.timed_out
    assert result.duration_s < 5
    assert _wait_gone(MARKER) == []


def test_output_flood_is_cut_off() -> None:
    config = SandboxConfig(max_output_bytes=200_000)
    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 8192)\n    sys.stderr.write('y')\n"
    result = run_python(code, config=config, timeout_s=10)
    assert result.killed_reason == "output_limit"
    assert result.output_truncated
    assert not result.timed_out
    assert len(result.stdout) + len(result.stderr) <= 200_000
    assert result.duration_s < 5


def test_spawned_shell_is_inside_the_same_jail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGESWARM_TEST_SECRET", "hunter2")
    script = (
        'id -u; echo "secret=[$EDGESWARM_TEST_SECRET]"; cat /etc/shadow; ls /root; '
        "touch /usr/pwned; ulimit -n"
    )
    code = (
        "import subprocess\n"
        f"r = subprocess.run(['/bin/sh', '-c', {script!r}], capture_output=True, text=True)\n"
        "print(r.stdout)\nprint(r.stderr)\n"
    )
    result = run_python(code, config=SandboxConfig(max_open_files=64, max_processes=32))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.splitlines()[:2] == ["65534", "secret=[]"]
    assert "hunter2" not in out
    assert "/etc/shadow: No such file or directory" in out
    assert "/root" in out and "No such file or directory" in out
    assert "Read-only file system" in out
    assert out.splitlines()[2] == "64"


def test_rlimits_cannot_be_raised_again() -> None:
    code = (
        "import json, resource, subprocess\nres = {}\n"
        "for name in ['RLIMIT_AS', 'RLIMIT_CPU', 'RLIMIT_NOFILE', 'RLIMIT_NPROC',\n"
        "             'RLIMIT_FSIZE', 'RLIMIT_CORE']:\n"
        "    which = getattr(resource, name)\n"
        "    try:\n"
        "        resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "        outcome = 'RAISED'\n"
        "    except (ValueError, OSError) as exc:\n"
        "        outcome = type(exc).__name__\n"
        "    res[name] = [outcome, resource.getrlimit(which)]\n"
        "p = subprocess.run(['prlimit', '--nofile=100000:100000', 'sh', '-c', 'ulimit -n'],\n"
        "                   capture_output=True, text=True)\n"
        "res['prlimit'] = [p.returncode, p.stdout + p.stderr]\n"
        "print(json.dumps(res))\n"
    )
    result = run_python(code, memory_mb=200, timeout_s=5)
    assert result.exit_code == 0, result.stderr
    res = json.loads(result.stdout)
    prlimit_rc, prlimit_out = res.pop("prlimit")
    assert prlimit_rc != 0 and "100000" not in prlimit_out
    assert all(outcome == "ValueError" for outcome, _ in res.values()), res
    assert res["RLIMIT_AS"][1] == [200 * 1024 * 1024] * 2
    assert res["RLIMIT_CPU"][1] == [6, 6]
    assert res["RLIMIT_NOFILE"][1] == [64, 64]
    assert res["RLIMIT_NPROC"][1] == [32, 32]
    assert res["RLIMIT_CORE"][1] == [0, 0]


def test_symlinks_out_lead_nowhere(tmp_path: Path) -> None:
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("TOP-SECRET")
    targets = {"to_shadow": "/etc/shadow", "to_host": str(secret_file), "to_root": "/root/.ssh"}
    code = (
        "import json, os\nout = {}\n"
        f"for name, target in {targets!r}.items():\n"
        "    os.symlink(target, name)\n"
        "    try:\n"
        "        out[name] = open(name).read()\n"
        "    except OSError as exc:\n"
        "        out[name] = type(exc).__name__\n"
        "os.symlink('/', 'to_slash')\n"
        "out['slash'] = sorted(os.listdir('to_slash'))\n"
        "print(json.dumps(out))\n"
    )
    result = run_python(code)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert "TOP-SECRET" not in result.stdout
    assert [out[name] for name in targets] == ["FileNotFoundError"] * 3
    assert "root" not in out["slash"] and "home" not in out["slash"]
