"""The sandbox still runs ordinary code and tests, and refuses to run when it cannot isolate."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tools.sandbox import SandboxConfig, SandboxUnavailable, run_python, run_tests


def test_prints_and_exits_zero() -> None:
    result = run_python("print('hello from the sandbox')")
    assert result.exit_code == 0
    assert result.stdout == "hello from the sandbox\n"
    assert result.stderr == ""
    assert not result.timed_out
    assert result.killed_reason is None
    assert result.duration_s < 5


def test_files_modules_and_work_dir() -> None:
    code = (
        "import json\n"
        "from pkg.calc import add\n"
        "with open('data/in.json') as f:\n"
        "    numbers = json.load(f)\n"
        "with open('out.txt', 'w') as f:\n"
        "    f.write(str(add(*numbers)))\n"
        "print(open('out.txt').read(), __import__('os').getcwd())\n"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/calc.py": "def add(a, b):\n    return a + b\n",
        "data/in.json": "[2, 40]",
    }
    result = run_python(code, files=files)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["42", "/work"]


def test_exit_code_and_traceback_propagate() -> None:
    assert run_python("import sys; sys.exit(3)").exit_code == 3
    failed = run_python("raise ValueError('boom')")
    assert failed.exit_code == 1
    assert "ValueError: boom" in failed.stderr
    assert failed.killed_reason is None


def test_work_dir_is_fresh_each_run() -> None:
    code = (
        "import os, tempfile\n"
        "open('/tmp/marker', 'w').write('x')\n"
        "print(tempfile.gettempdir(), os.environ['HOME'], os.path.exists('/work/marker'))\n"
    )
    first = run_python(code)
    assert first.exit_code == 0, first.stderr
    assert first.stdout.split() == ["/work", "/work", "True"]
    second = run_python("import os; print(os.path.exists('/work/marker'))")
    assert second.stdout.strip() == "False"


def test_run_tests_passing_suite() -> None:
    files = {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "test_calc.py": (
            "import unittest\n"
            "from calc import add\n\n"
            "def test_add():\n    assert add(2, 2) == 4\n\n"
            "def test_add_negative():\n    assert add(-1, 1) == 0\n\n"
            "class AddCase(unittest.TestCase):\n"
            "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"
        ),
    }
    result = run_tests(files)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "RESULT passed=3 failed=0" in result.stdout


def test_run_tests_failing_suite() -> None:
    files = {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "test_calc.py": (
            "from calc import add\n\n"
            "def test_add():\n    assert add(2, 2) == 4\n\n"
            "def test_identity():\n    assert add(0, 0) == 0\n"
        ),
    }
    result = run_tests(files)
    assert result.exit_code == 1
    assert "FAIL test_calc::test_add" in result.stdout
    assert "PASS test_calc::test_identity" in result.stdout
    assert "RESULT passed=1 failed=1" in result.stdout
    assert "AssertionError" in result.stderr


def test_run_tests_without_tests_fails() -> None:
    result = run_tests({"calc.py": "x = 1\n"})
    assert result.exit_code == 1
    assert "RESULT passed=0 failed=0" in result.stdout


def test_real_pytest_when_its_site_packages_is_bound() -> None:
    # pytest is not part of the sandbox by default; binding its site-packages read-only
    # (the documented opt-in) makes it importable.
    site = Path(pytest.__file__).resolve().parent.parent
    config = SandboxConfig(extra_python_paths=(site,))
    files = {"test_ok.py": "def test_one():\n    assert 1 + 1 == 2\n"}
    code = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'test_ok.py']))\n"
    )
    result = run_python(code, files=files, config=config, timeout_s=30)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


@pytest.mark.parametrize("name", ["../evil.py", "/abs.py", "a/../../b.py", "", "main.py"])
def test_bad_file_names_rejected(name: str) -> None:
    with pytest.raises(ValueError):
        run_python("pass", files={name: "x"})


def test_missing_bwrap_fails_closed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    config = SandboxConfig(bwrap_path=str(tmp_path / "no-such-bwrap"))
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_python(f"open({str(marker)!r}, 'w')", config=config)
    assert not marker.exists()


def test_failing_namespaces_fail_closed(tmp_path: Path) -> None:
    # Stands in for a kernel without user namespaces: bwrap reports the error and exits.
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: Creating new namespace failed' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(SandboxUnavailable, match="Creating new namespace failed"):
        run_python("print('must not run')", config=SandboxConfig(bwrap_path=str(fake)))


def test_bad_interpreter_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="interpreter"):
        run_python("pass", config=SandboxConfig(python_prefix=tmp_path))


def test_root_without_pids_cgroup_fails_closed(tmp_path: Path) -> None:
    config = SandboxConfig(cgroup_root=tmp_path / "no-cgroupfs")
    if os.geteuid() != 0:
        # Not root: RLIMIT_NPROC caps processes, so no cgroup is needed.
        assert run_python("pass", config=config).exit_code == 0
        return
    with pytest.raises(SandboxUnavailable, match="RLIMIT_NPROC"):
        run_python("pass", config=config)


def test_spawns_without_preexec_fn_so_the_caller_is_not_forked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``preexec_fn`` makes subprocess fork the caller (page tables copied under the GIL, a
    cost that grew with the heap: the swarm load test ran twice as slowly after the gateway
    state machine); the cgroup is joined by a shell in the child instead."""
    import subprocess

    from tools import sandbox

    seen: list[tuple[list[str], dict[str, object]]] = []
    real = subprocess.Popen

    def spy(argv: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        seen.append((argv, kwargs))
        return real(argv, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(subprocess, "Popen", spy)
    assert run_python("print(1)").stdout == "1\n"
    [(argv, kwargs)] = seen
    assert kwargs.get("preexec_fn") is None
    if os.geteuid() == 0:  # the pids cgroup is joined by the shell before it becomes bwrap
        assert argv[:3] == list(sandbox._JOIN_CGROUP) and argv[3].endswith("/cgroup.procs")


def test_code_starts_as_python_does_unless_site_is_off() -> None:
    code = "import sys\nprint(sys.flags.no_site, 'site' in sys.modules)\n"
    assert run_python(code).stdout == "0 True\n"
    # site=False: -S, for a harness that puts the site-packages on sys.path itself
    assert run_python(code, site=False).stdout == "1 False\n"
