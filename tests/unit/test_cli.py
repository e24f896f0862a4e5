import json
from pathlib import Path

import pytest

from graphs.cli import EXIT_ENVIRONMENT, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from tests.conftest import FakeOpenAI
from tests.unit.test_structured import BRIEF


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))


def test_run_against_a_server_prints_json(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.script({"content": json.dumps(BRIEF)})
    code = main(
        [
            "run",
            "--json",
            "--base-url",
            fake_openai.base_url,
            "--model",
            "fake-model",
            "add two numbers",
        ]
    )
    assert code == EXIT_OK
    output = json.loads(capsys.readouterr().out)
    assert output["status"] == "done"
    assert output["brief"]["entry_point"] == "add"
    assert output["endpoint"] == fake_openai.base_url
    assert len(output["run_id"]) == 12


def test_run_pretty_output(fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    fake_openai.script({"content": json.dumps(BRIEF)})
    assert main(["run", "--base-url", fake_openai.base_url, "add two numbers"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "done" in out and "add(2, 3) == 5" in out


def test_failed_run_exits_non_zero_with_reason(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.script({"content": '{"summary": "x', "finish_reason": "length"})
    assert main(["run", "--base-url", fake_openai.base_url, "add two numbers"]) == EXIT_FAILED
    assert "cut off" in capsys.readouterr().out


def test_empty_task_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "  "]) == EXIT_USAGE
    assert "the task is empty" in capsys.readouterr().err


def test_task_from_stdin(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("add two numbers\n"))
    fake_openai.script({"content": json.dumps(BRIEF)})
    assert main(["run", "--json", "--base-url", fake_openai.base_url, "-"]) == EXIT_OK
    [body] = fake_openai.requests()
    assert body["messages"][-1]["content"].strip().endswith("add two numbers")


def test_bad_setting_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGESWARM_REQUEST_TIMEOUT_S", "-1")
    assert main(["run", "task"]) == EXIT_USAGE
    assert "EDGESWARM_REQUEST_TIMEOUT_S" in capsys.readouterr().err


def test_unpulled_model_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "add two numbers"]) == EXIT_ENVIRONMENT
    assert "edgeswarm models pull" in capsys.readouterr().err


def test_unknown_model_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "pull", "gpt-5"]) == EXIT_USAGE
    assert "unknown model 'gpt-5'" in capsys.readouterr().err


def test_models_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "list", "--json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    assert {row["name"] for row in rows} >= {"qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct"}
    assert all(row["status"] == "not pulled" for row in rows)
