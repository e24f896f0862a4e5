"""`edgeswarm` as a user runs it: real subprocesses, the real model, nothing left behind."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import assert_honest_result, edgeswarm
from tests.support.processes import alive, descendants, wait_gone

SMALL = "smollm2-135m-instruct"
TASK = "Write a Python function is_even(n) that returns True when the integer n is even."


def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["EDGESWARM_STATE_DIR"] = str(tmp_path / "state")
    env["EDGESWARM_LOG_FORMAT"] = "json"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def test_ctrl_c_leaves_no_vllm_process(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        edgeswarm("run", TASK),
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # like a terminal's foreground job
    )
    seen: set[int] = set()
    deadline = time.monotonic() + 120
    # wait until the vLLM server and its engine are up and loading
    while len(seen) < 2 and time.monotonic() < deadline and proc.poll() is None:
        seen |= descendants(proc.pid)
        time.sleep(0.5)
    time.sleep(3)
    seen |= descendants(proc.pid)
    assert len(seen) >= 2, "vLLM did not start"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err
    assert wait_gone(seen) == set(), "vLLM processes outlived Ctrl-C"


def last_node(tmp_path: Path) -> str | None:
    """The last node the runs table recorded as done (of the one run under ``tmp_path``)."""
    path = tmp_path / "state" / "runs.sqlite"
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT last_node FROM runs").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def progress_line(err: str, node: str) -> str | None:
    """The live progress line of ``node`` in a run's stderr, if it finished.

    Not the lines saying it waits for its model (``waiting for``, ``ready after``).
    """
    waits = re.compile(rf"^\[{re.escape(node)}\] (waiting for |.* ready after )")
    return next(
        (
            line
            for line in err.splitlines()
            if line.startswith(f"[{node}] ") and not waits.match(line)
        ),
        None,
    )


@pytest.mark.timeout(900)
def test_a_run_killed_with_sigkill_resumes_at_once_and_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    """SIGKILL (the OOM killer, a crash) of a real run after the test writer finished, then
    `resume` at once, with no wait: the killed run's gateway, still shutting down, is not
    "another gateway that does not serve your models"; the resume waits for it to release the
    device, starts its own and continues from the checkpoint with real models (the test
    writer does not run again). The gateway and vLLM servers of both runs end with them.

    The task names its function, so the researcher asks no model (``Context.parallel_brief``)
    and the test writer's is the first call to end beside the coder's."""
    env = cli_env(tmp_path)
    first = tmp_path / "first.err"
    with first.open("w") as err_file:
        proc = subprocess.Popen(
            edgeswarm("run", "--max-revisions", "0", TASK),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
            text=True,
        )
        seen: set[int] = set()
        deadline = time.monotonic() + 600
        while progress_line(first.read_text(), "test_writer") is None:
            assert proc.poll() is None, first.read_text()[-3000:]
            assert time.monotonic() < deadline, "the test writer did not finish"
            seen |= descendants(proc.pid)
            time.sleep(0.2)
        # The progress line is printed as the test writer's model call ends, a moment before
        # its node returns and the checkpoint keeps its writes: wait for the runs table to
        # record the node (a killed make test once lost that race). Beside the coder a later
        # node may be recorded first: after a second, any node past setup will do. Waiting
        # longer let the run reach its end, leaving the resume nothing to start (a make test
        # lost that way too).
        start = time.monotonic()
        while time.monotonic() < start + 10:
            node = last_node(tmp_path)
            if node == "test_writer" or (
                node not in (None, "setup", "researcher") and time.monotonic() > start + 1
            ):
                break
            time.sleep(0.05)
        seen |= descendants(proc.pid)
        proc.kill()  # the CLI alone, as the kernel would: its children are not signalled
        proc.wait(timeout=30)
    killed = first.read_text()
    thread = re.search(r"thread ([0-9a-f-]{36})", killed)
    assert thread is not None, killed[-2000:]
    resume = subprocess.Popen(
        edgeswarm("resume", thread[1], "--json"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert len(seen) >= 3, "the run should have started a gateway and a vLLM server"
    assert wait_gone(seen, 90) == set(), "the gateway or vLLM outlived the killed run"
    started: set[int] = set()
    while resume.poll() is None:
        started |= descendants(resume.pid)
        time.sleep(0.5)
    out, err = resume.communicate()
    output = json.loads(out)
    assert_honest_result(output, resume.returncode, err)
    assert started and wait_gone(started) == set(), "vLLM processes outlived the resumed run"
    assert output["run_id"] in err  # every log event of the run carries its id
    assert re.search(f"resuming thread {thread[1]} after [a-z_]+", err), err[-2000:]
    assert progress_line(err, "test_writer") is None  # not run again
    [writer] = [m for m in output["metrics"] if m["node"] == "test_writer"]
    line = progress_line(killed, "test_writer")
    assert line is not None and f"{writer['seconds']:.1f} s" in line  # the killed run's
    listed = subprocess.run(
        edgeswarm("runs", "--json"), env=env, capture_output=True, text=True, check=True
    )
    [row] = json.loads(listed.stdout)
    assert row["thread_id"] == thread[1] and row["status"] != "interrupted", row


# Real runs of small models on 2 shared CPU cores: minutes each, more under load.
@pytest.mark.timeout(900)
def test_run_reuses_a_served_model(tmp_path: Path) -> None:
    """A run finds the model `edgeswarm serve` serves and leaves it running. SmolLM2 keeps
    the run short on a slow CPU: what is checked is the reuse, not the model's answer."""
    env = cli_env(tmp_path)
    serve = subprocess.Popen(
        edgeswarm("serve", "--model", SMALL),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        match = re.search(r"serving (\S+) at (\S+)", line)
        assert match, line
        served = descendants(serve.pid)
        run = subprocess.run(
            edgeswarm("run", "--json", "--max-revisions", "0", "--model", SMALL, TASK),
            env=env,
            capture_output=True,
            text=True,
            timeout=780,
        )
        output = json.loads(run.stdout)
        assert_honest_result(output, run.returncode, run.stderr)
        assert output["endpoint"] == match[2]
        assert "server_reused" in run.stderr
        assert alive(served) == served, "a reusing run must not stop the served model"
    finally:
        serve.send_signal(signal.SIGINT)
        serve.communicate(timeout=60)
    assert wait_gone(served) == set()
    assert not list((tmp_path / "state" / "servers").glob("*.json"))


def test_second_pull_is_fast_and_changes_nothing(models_dir: Path) -> None:
    weights = sorted(models_dir.glob("*/model*.safetensors"))
    before = {path: path.stat().st_mtime_ns for path in weights}
    start = time.monotonic()
    done = subprocess.run(
        edgeswarm("models", "pull"), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 60
    assert done.stdout.count("already present") == 2
    assert {path: path.stat().st_mtime_ns for path in weights} == before


@pytest.mark.parametrize("name", ["qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct"])
def test_pulled_models_are_listed_with_sizes(name: str) -> None:
    done = subprocess.run(
        edgeswarm("models", "list", "--json"), capture_output=True, text=True, check=True
    )
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows[name]["status"] == "ready"
    assert rows[name]["size_bytes"] > 100_000_000
