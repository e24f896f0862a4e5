"""``edgeswarm`` as a user runs it, in a subprocess, and what an honest result of a run is."""

from __future__ import annotations

import sys


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
