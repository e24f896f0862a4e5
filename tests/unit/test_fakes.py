"""The one fake model server: its command line, built by ``tests.fakes.fake_command``, is the
one its own parser reads (every option it has can be given, and each arrives as given), and it
answers in the order its docstring gives, in either persona (served in process, no socket)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.fakes import FAKES, MODEL_SERVER, fake_command, model_server


def parsed(command: list[str], monkeypatch: pytest.MonkeyPatch) -> argparse.Namespace:
    """What the fake server's ``main`` makes of ``command`` (nothing is served)."""
    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(sys, "argv", command[1:])
    monkeypatch.setattr(model_server, "serve", seen.append)
    model_server.main()
    [args] = seen
    return args


def test_every_option_of_the_fake_server_arrives_as_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    given: dict[str, Any] = {
        "scripted": True,
        "footprint": 123,
        "tag": "t-1",
        "load_time": 0.5,
        "token_rate": 40.0,
        "latency": 0.25,
        "tokens": 7,
        "answers": tmp_path / "answers.json",
        "gpu_bytes": 1000,
        "sim_gpu_dir": tmp_path,
        "gpu_context_bytes": 10,
        "sleep_mode": True,
        "spawn_child": True,
        "exit_at_start": 3,
    }
    command = fake_command(8123, "m", **given)
    assert command[:2] == [sys.executable, str(MODEL_SERVER)]
    args = vars(parsed(command, monkeypatch))
    assert {key: args[key] for key in given} == given
    assert (args["port"], args["model"]) == (8123, "m")
    # nothing left that the builder cannot give but the listening address
    assert set(args) - set(given) == {"port", "model", "host"}


def test_the_defaults_are_the_gateways_placeholders_and_the_servers_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    placeholders = ["--port", "{port}", "--model", "{name}"]
    assert fake_command() == [sys.executable, str(MODEL_SERVER), *placeholders]
    args = parsed(fake_command(1, "m"), monkeypatch)
    assert (args.footprint, args.tag, args.sleep_mode, args.answers) == (1 << 30, "", False, None)
    assert (args.scripted, args.load_time, args.exit_at_start) == (False, 0.2, None)
    # the scripted persona loads at once unless told otherwise
    assert parsed(fake_command(1, "m", scripted=True), monkeypatch).load_time == 0.0
    assert parsed(fake_command(1, "m", scripted=True, load_time=2), monkeypatch).load_time == 2


def test_the_scripted_command_and_the_one_server() -> None:
    assert fake_command(7, "rec", scripted=True, latency=1) == [
        *(sys.executable, str(MODEL_SERVER)),
        *("--port", "7", "--model", "rec", "--latency", "1", "--scripted"),
    ]
    assert sorted(path.name for path in FAKES.glob("*.py")) == ["__init__.py", "model_server.py"]


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"Brief": {"canned": True}, "code": "```python\nx = 1\n```"}))
    return path


@contextmanager
def served(*argv: str) -> Iterator[TestClient]:
    """The fake server's app in process (a fast token rate: no waiting)."""
    args = model_server.options(["--port", "1", "--model", "m", "--token-rate", "1e9", *argv])
    with TestClient(model_server.build_app(model_server.Server(args))) as client:
        yield client


@pytest.fixture
def vllm(answers: Path) -> Iterator[TestClient]:
    with served("--answers", str(answers)) as client:
        yield client


@pytest.fixture
def scripted() -> Iterator[TestClient]:
    with served("--scripted") as client:
        yield client


SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}


def ask(client: TestClient, *, schema: str | None = None, **body: Any) -> dict[str, Any]:
    """One chat completion's JSON; ``schema`` names a json_schema response format."""
    payload: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    if schema is not None:
        spec = {"name": schema, "schema": SCHEMA}
        payload["response_format"] = {"type": "json_schema", "json_schema": spec}
    reply = client.post("/v1/chat/completions", json={**payload, **body})
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


def content(answer: dict[str, Any]) -> str:
    text: str = answer["choices"][0]["message"]["content"]
    return text


def test_the_vllm_persona_answers_script_then_canned_then_a_default(vllm: TestClient) -> None:
    vllm.post("/_fake/script", json=[{"schema": "Brief", "content": "scripted"}])
    assert content(ask(vllm, schema="Other")) == '{"n": 1, "s": "xx"}'  # a schema instance
    assert content(ask(vllm, schema="Brief")) == "scripted"  # the step, taken off the queue
    assert json.loads(content(ask(vllm, schema="Brief"))) == {"canned": True}
    grammar: dict[str, Any] = {"structured_outputs": {"grammar": "..."}}
    assert content(ask(vllm, **grammar)) == "```python\nx = 1\n```"
    assert content(ask(vllm)) == "```python\nx = 1\n```"  # a free request: the coder's too
    answer = ask(vllm)
    assert (answer["model"], answer["usage"]) == (
        "m",
        {"prompt_tokens": 5, "total_tokens": 21, "completion_tokens": 16},
    )
    refused = vllm.post("/v1/chat/completions", json={"model": "other", "messages": []})
    assert refused.status_code == 404
    assert len(vllm.get("/_fake/requests").json()) == 7


def test_without_canned_answers_vllm_answers_pass_and_names_itself() -> None:
    with served() as client:
        assert content(ask(client, structured_outputs={"grammar": "."})) == "```python\npass\n```"
        assert content(ask(client)) == "fake answer from m"
        completion = client.post("/v1/completions", json={"model": "m", "prompt": "x"}).json()
        assert completion["choices"][0]["text"] == "fake answer from m"


def test_the_scripted_persona_echoes_any_model_and_counts_characters(
    scripted: TestClient,
) -> None:
    answer = ask(scripted, model="any/other")
    assert content(answer) == '{"echo": "hi"}' and answer["model"] == "any/other"
    assert answer["usage"] == {"prompt_tokens": 10, "total_tokens": 13, "completion_tokens": 3}
    # a schema nobody scripted (a new role's, say) gets a valid answer, not the echo
    assert json.loads(content(ask(scripted, schema="Opinion"))) == {"n": 1, "s": "xx"}
    steps = [
        {"contains": "later", "content": "second"},
        {"schema": "Brief", "content": "first", "finish_reason": "length", "prompt_tokens": 99},
        {"status": 429, "headers": {"Retry-After": "1"}},
        {"delay_s": 0},  # no content: the default answer
    ]
    scripted.post("/_fake/script", json=steps)
    answer = ask(scripted, schema="Brief")
    assert (content(answer), answer["choices"][0]["finish_reason"]) == ("first", "length")
    assert answer["usage"]["prompt_tokens"] == 99
    failed = scripted.post("/v1/chat/completions", json={"messages": []})
    assert (failed.status_code, failed.headers["retry-after"]) == (429, "1")
    assert content(ask(scripted)) == '{"echo": "hi"}'
    assert content(ask(scripted, messages=[{"role": "user", "content": "later"}])) == "second"
    scripted.post("/_fake/reset")
    assert scripted.get("/_fake/requests").json() == []


def test_both_personas_stream_a_scripted_answer_with_usage(
    vllm: TestClient, scripted: TestClient
) -> None:
    for client in (vllm, scripted):
        client.post("/_fake/script", json=[{"content": "streamed answer", "completion_tokens": 4}])
        body = {"stream": True, "stream_options": {"include_usage": True}}
        payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **body}
        with client.stream("POST", "/v1/chat/completions", json=payload) as reply:
            events = [line[6:] for line in reply.iter_lines() if line.startswith("data: ")]
        assert events[-1] == "[DONE]"
        chunks = [json.loads(event) for event in events[:-1]]
        pieces = [c["choices"][0]["delta"]["content"] for c in chunks if c["choices"]]
        assert "".join(pieces) == "streamed answer"
        assert chunks[-1]["usage"]["completion_tokens"] == 4


def test_sleep_mode_refuses_while_asleep() -> None:
    with served("--sleep-mode") as client:
        assert client.post("/sleep?level=1").status_code == 200
        assert client.get("/is_sleeping").json() == {"is_sleeping": True}
        asleep = client.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert asleep.status_code == 503
        assert client.post("/wake_up").status_code == 200
        assert content(ask(client)) == "fake answer from m"
        assert client.get("/_fake/info").json()["served"] == 1
