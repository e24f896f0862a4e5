"""``edgeswarm`` as a user runs it, in a subprocess, and what an honest result of a run is."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


def edgeswarm(*args: str) -> list[str]:
    """The command line of ``edgeswarm ARGS...`` (this interpreter, ``-m app.cli``)."""
    return [sys.executable, "-m", "app.cli", *args]


def assert_honest_result(output: dict[str, object], returncode: int, err: str) -> None:
    """Whatever the small model did, the run ended with a valid report and a true status.

    Small CPU models sometimes loop until their token budget (then the retry and fallback
    run); the system's guarantee is an honest outcome and exit code, never a crash or hang.
    """
    report = output["report"]
    assert isinstance(report, dict), err[-3000:]
    outcome = report["outcome"]
    assert returncode == {"approved": 0, "unresolved": 4, "failed": 1}[outcome], err[-3000:]
    assert output["status"] == ("failed" if outcome == "failed" else "done")
    if outcome == "failed":
        assert output["error"] and ":" in str(output["error"])  # names the node and why
    else:
        assert report["files"]["solution.py"] and report["tests"] is not None
    metrics = output["metrics"]
    assert isinstance(metrics, list) and metrics
    assert all(m["completion_tokens"] > 0 and m["seconds"] > 0 for m in metrics)


@dataclass(frozen=True)
class TerminalRun:
    """What a command printed on a terminal (stdout and stderr both), and its exit code."""

    returncode: int
    text: str

    @property
    def lines(self) -> list[str]:
        """The printed lines, as a user sees them (a terminal ends them with CR LF)."""
        return self.text.replace("\r\n", "\n").splitlines()


def run_on_a_terminal(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float = 120,
) -> TerminalRun:
    """Run ``command`` with a pseudo-terminal as its stdin, stdout and stderr (isatty true)."""
    main, child = pty.openpty()
    try:
        process = subprocess.Popen(
            list(command), stdin=child, stdout=child, stderr=child, env=dict(env), cwd=cwd
        )
    finally:
        os.close(child)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the child's side of the terminal is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        else:
            process.kill()
        returncode = process.wait(timeout=30)
    finally:
        os.close(main)
    return TerminalRun(returncode, b"".join(chunks).decode("utf-8", "replace"))
