"""The fake vLLM server's command line, built by ``tests.fakes.vllm_command``, is the one its
own parser reads: every option it has can be given, and each arrives as given."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from tests.fakes import OPENAI_SERVER, VLLM_BACKEND, openai_command, vllm_backend, vllm_command


def parsed(command: list[str], monkeypatch: pytest.MonkeyPatch) -> argparse.Namespace:
    """What the fake vLLM server's ``main`` makes of ``command`` (nothing is served)."""
    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(sys, "argv", command[1:])
    monkeypatch.setattr(vllm_backend, "Backend", seen.append)
    monkeypatch.setattr(vllm_backend, "build_app", lambda backend: backend)
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    vllm_backend.main()
    [args] = seen
    return args


def test_every_option_of_the_fake_vllm_server_arrives_as_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    given: dict[str, Any] = {
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
    }
    command = vllm_command(8123, "m", sleep_mode=True, **given)
    assert command[:2] == [sys.executable, str(VLLM_BACKEND)]
    args = vars(parsed(command, monkeypatch))
    assert {key: args[key] for key in given} == given
    assert (args["port"], args["model"], args["sleep_mode"]) == (8123, "m", True)
    # nothing left that the builder cannot give but the listening address
    assert set(args) - set(given) == {"port", "model", "sleep_mode", "host"}


def test_the_defaults_are_the_gateways_placeholders_and_the_servers_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    placeholders = ["--port", "{port}", "--model", "{name}"]
    assert vllm_command() == [sys.executable, str(VLLM_BACKEND), *placeholders]
    args = parsed(vllm_command(1, "m"), monkeypatch)
    assert (args.footprint, args.tag, args.sleep_mode, args.answers) == (1 << 30, "", False, None)


def test_the_openai_server_command() -> None:
    assert openai_command(7, "--latency", "1") == [
        *(sys.executable, str(OPENAI_SERVER)),
        *("--port", "7", "--latency", "1"),
    ]
    assert openai_command(model="rec")[2:] == ["--port", "{port}", "--model", "rec"]
    assert OPENAI_SERVER.is_file() and VLLM_BACKEND.is_file()
