"""``edgeswarm eval --out FILE``: each result is kept as it ends, and a second run skips them.

Issue 42: an eval stopped by Ctrl-C, SIGTERM or a timeout after 30 minutes kept nothing.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from app import cli, evaluate, report
from app.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, main
from tests.fakes import FakeOpenAI
from tests.support.scripts import GOOD_CODE
from tests.support.tasks import task_set


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))


def answer(task: str) -> dict[str, str]:
    """The plain arm's answer to ``task``: a right solution in a code block."""
    return {"content": f"```python\n{GOOD_CODE}```", "contains": f"({task})"}


def eval_args(root: Path, out: Path, fake: FakeOpenAI, *extra: str) -> list[str]:
    return [
        "eval",
        "--tasks",
        str(root),
        "--base-url",
        fake.base_url,
        "--model",
        "fake-model",
        "--arms",
        "plain",
        "--concurrency",
        "1",
        "--out",
        str(out),
        *extra,
    ]


def signal_after_first_task(monkeypatch: pytest.MonkeyPatch, signum: int) -> None:
    """Send this process ``signum`` (Ctrl-C, a supervisor's or ``timeout``'s SIGTERM) once the
    first task has ended, while the second waits for its model."""
    real = report.print_eval_progress

    def progress(arm: str, task: str, result: evaluate.ArmResult) -> None:
        real(arm, task, result)
        threading.Timer(0.5, os.kill, (os.getpid(), signum)).start()

    monkeypatch.setattr(cli, "print_eval_progress", progress)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stopped_eval_keeps_its_results_and_the_next_run_skips_them(
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    signum: int,
) -> None:
    root = task_set(tmp_path / "set", ("01_add", "02_add_again"))
    out = tmp_path / "results" / "eval.json"
    partial = out.with_name("eval.json.partial.jsonl")
    fake_openai.script(answer("01_add"), {**answer("02_add_again"), "delay_s": 20})
    with monkeypatch.context() as patch:
        signal_after_first_task(patch, signum)
        if signum == signal.SIGINT:
            assert main(eval_args(root, out, fake_openai)) == EXIT_INTERRUPTED
        else:  # the CLI's SIGTERM handler raises SystemExit(143)
            with pytest.raises(SystemExit) as stop:
                main(eval_args(root, out, fake_openai))
            assert stop.value.code == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert not out.exists()
    assert f"eval: stopped; 1 result kept in {partial}: the same command again skips" in err
    lines = [json.loads(line) for line in partial.read_text().splitlines()]
    assert lines[0]["edgeswarm_eval_partial"] == 1
    assert [(row["arm"], row["task"]) for row in lines[1:]] == [("plain", "01_add")]
    assert lines[1]["result"]["solved"] is True
    first_requests = len(fake_openai.requests())

    fake_openai.script(answer("02_add_again"))
    assert main(eval_args(root, out, fake_openai)) == EXIT_OK
    err = capsys.readouterr().err
    assert f"eval: 1 result kept in {partial} by an earlier run: skipped" in err
    assert "[plain] 02_add_again: solved" in err and "[plain] 01_add" not in err
    again = fake_openai.requests()[first_requests:]
    asked = json.dumps([body.get("messages") for body in again])
    assert "(02_add_again)" in asked and "(01_add)" not in asked  # 01 did not run again
    saved = json.loads(out.read_text())
    assert [row["task"] for row in saved["tasks"]] == ["01_add", "02_add_again"]
    assert all(row["plain"]["solved"] for row in saved["tasks"])
    assert saved["summary"]["plain"]["solved"] == 2 and saved["resumed"] == 1
    assert not partial.exists()  # the results file is whole: the kept lines are not needed


def test_kept_results_of_other_settings_are_refused_not_mixed(
    tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    root = task_set(tmp_path / "set", ("01_add",))
    out = tmp_path / "eval.json"
    before = {
        "tasks": str(root.resolve()),
        "model": "fake-model",
        "base_url": fake_openai.base_url,
        "max_revisions": None,
    }
    log = evaluate.ResultLog(evaluate.partial_path(out), before)
    log.start()
    log.append("plain", "01_add", evaluate.ArmResult(solved=True))
    args = eval_args(root, out, fake_openai, "--max-revisions", "3")
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith(f"edgeswarm: error: {log.path} keeps the results of an eval with")
    assert "(max_revisions was None, now 3)" in err[0]
    assert fake_openai.requests() == []


def test_out_as_a_directory_is_refused_before_any_task(
    tmp_path: Path, fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    root = task_set(tmp_path / "set", ("01_add",))
    folder = tmp_path / "results"
    folder.mkdir()
    assert main(eval_args(root, folder, fake_openai)) == EXIT_USAGE
    assert f"--out {folder} is a directory; give a file" in capsys.readouterr().err
    assert fake_openai.requests() == []


def test_a_line_cut_by_a_kill_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "eval.json.partial.jsonl"
    log = evaluate.ResultLog(path, {"tasks": "t"})
    log.start()
    log.append("swarm", "01_add", evaluate.ArmResult(solved=True, seconds=3.5))
    with path.open("a") as file:
        file.write('{"arm": "swarm", "task": "02_add", "result": {"sol')  # killed mid-write
    kept = evaluate.ResultLog(path, {"tasks": "t"}).load()
    assert kept == {("swarm", "01_add"): evaluate.ArmResult(solved=True, seconds=3.5)}
    with pytest.raises(evaluate.ResumeMismatchError, match="tasks was 't', now 'u'"):
        evaluate.ResultLog(path, {"tasks": "u"}).load()


def test_a_file_that_is_no_such_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "eval.json.partial.jsonl"
    path.write_text('{"something": "else"}\n')
    with pytest.raises(evaluate.TaskSetError, match="is not a file of kept eval results"):
        evaluate.ResultLog(path, {}).load()
