"""The gateway assembled (:mod:`runtime.gateway.service`): config to setup, setup to service.

:func:`prepare` resolves a config file's device, budget, directories and token (which never
shows in a repr); :class:`GatewayService` builds each model's slot with the limits of the model
or the defaults; the relay's helpers shape what goes upstream (a remote model's own name, no
seed on a sampled CPU request) and read what comes back (usage, an error's reason). The relay
itself runs in the live and virtual gateway tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.gateway.budget import Budget
from runtime.gateway.config import parse_config
from runtime.gateway.service import (
    GatewayService,
    GatewaySetup,
    _outcome,
    _renamed,
    _unseeded_if_sampled,
    _upstream_reason,
    prepare,
    usage_of,
)
from runtime.settings import Device, load_settings

MB = 10**6
TOKEN = "service-token-0123456789"


@pytest.mark.parametrize(
    ("sent", "kept_seed"),
    [
        ({"temperature": 0, "seed": 1}, True),  # greedy: no generator, nothing to crash
        ({"temperature": 0.0, "seed": 1}, True),
        ({"temperature": 0.7, "seed": 1}, False),
        ({"seed": 1}, False),  # no temperature: the server's default samples
        ({"temperature": None, "seed": 1}, False),
        ({"temperature": 0.7}, True),  # no seed to drop
    ],
)
def test_a_sampled_request_to_a_cpu_server_loses_its_seed(
    sent: dict[str, Any], kept_seed: bool
) -> None:
    body = {"model": "m", "messages": [], **sent}
    out = json.loads(_unseeded_if_sampled(json.dumps(body).encode()))
    assert out == (body if kept_seed else {k: v for k, v in body.items() if k != "seed"})
    assert _unseeded_if_sampled(b"not json") == b"not json"  # the server says what is wrong


def test_the_usage_of_an_answer_is_read_from_its_bytes() -> None:
    whole = json.dumps(
        {
            "choices": [{"message": {"content": 'say "prompt_tokens": 99'}}],
            "usage": {"prompt_tokens": 12, "total_tokens": 19, "completion_tokens": 7},
        }
    ).encode()
    assert usage_of(whole) == (12, 7)  # the escaped quote in the text opens no key
    assert usage_of(b'data: {"choices": [{"delta": {}}]}\n\ndata: [DONE]\n\n') is None


def test_prepare_resolves_the_directories_and_the_token_and_hides_it(tmp_path: Path) -> None:
    config = {
        "device": "cpu",
        "budget": {"bytes": 1000 * MB},
        "models": [
            {"name": "a", "backend": "command", "command": ["serve"], "footprint": 100 * MB},
            {"name": "far", "backend": "remote", "url": "http://far:1/v1", "api_key": "far-key"},
        ],
    }
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    settings = load_settings(state_dir=tmp_path / "state", models_dir=tmp_path / "models")
    setup = prepare(path, settings, {"EDGESWARM_GATEWAY_TOKEN": TOKEN})
    assert (setup.origin, setup.device) == (str(path), Device.CPU)
    assert setup.budget.device_bytes == 1000 * MB
    assert (setup.state_dir, setup.models_dir) == (tmp_path / "state", tmp_path / "models")
    assert setup.log_dir == tmp_path / "state" / "logs"
    assert setup.token == TOKEN and setup.secrets == [TOKEN, "far-key"]
    assert TOKEN not in repr(setup)
    config["state_dir"] = str(tmp_path / "own")  # the config's own directory wins
    path.write_text(yaml.safe_dump(config))
    mine = prepare(path, settings, {})
    assert mine.state_dir == tmp_path / "own" and mine.token is None
    assert mine.secrets == ["far-key"]


async def test_each_slot_takes_its_limits_from_its_model_or_the_defaults() -> None:
    def command(name: str) -> dict[str, Any]:
        return {"name": name, "backend": "command", "command": ["serve"], "footprint": 600 * MB}

    raw = {
        "device": "cuda",
        "budget": {"bytes": 1000 * MB},
        "scheduling": {"request_timeout_s": 90, "request_idle_s": 30, "max_in_flight": 8},
        "models": [
            {**command("plain"), "load_estimate_s": 12},
            {
                **command("sleepy"),
                "swap": "sleep",
                "sleep_level": 2,
                "sleep_device_footprint": 50 * MB,
                "request_timeout_s": 5,
                "max_in_flight": 3,
            },
            {**command("kept"), "swap": "sleep", "sleep_footprint": 200 * MB},
            {"name": "far", "backend": "remote", "url": "http://far:1/v1"},
        ],
    }
    setup = GatewaySetup(
        config=parse_config(raw, origin="gw.yaml"),
        origin="gw.yaml",
        device=Device.CUDA,
        budget=Budget(1000 * MB, 2000 * MB, "budget.bytes"),
        state_dir=Path("/nonexistent/state"),
        models_dir=Path("/nonexistent/models"),
    )
    service = GatewayService(setup)  # built, not started
    try:
        plain, sleepy, kept, far = (service.slots[n] for n in ("plain", "sleepy", "kept", "far"))
        assert (plain.footprint, plain.reload_s, plain.swap) == (600 * MB, 12, "stop")
        assert (plain.request_timeout_s, plain.request_idle_s, plain.max_in_flight) == (90, 30, 8)
        assert (sleepy.sleep_level, sleepy.sleep_device_footprint) == (2, 50 * MB)
        assert (sleepy.request_timeout_s, sleepy.max_in_flight) == (5, 3)
        assert sleepy.sleep_host_footprint == 600 * MB  # not declared: the footprint
        assert kept.sleep_host_footprint == 200 * MB
        assert (far.footprint, far.managed, far.request_timeout_s) == (0, False, 90)
        assert service.model_names() == ["plain", "sleepy", "kept", "far"]
        assert (service.ledger.device_budget, service.ledger.host_budget) == (1000 * MB, 2000 * MB)
    finally:
        await service.client.aclose()


def test_a_remote_model_gets_the_body_under_its_own_name() -> None:
    body = json.dumps({"model": "far", "messages": [], "stream": True}).encode()
    assert json.loads(_renamed(body, "org/served-name")) == {
        "model": "org/served-name",
        "messages": [],
        "stream": True,
    }


def test_an_upstream_error_s_reason_is_its_message() -> None:
    openai = json.dumps({"error": {"message": "max_tokens must be positive", "code": 400}})
    assert _upstream_reason(400, openai.encode()) == "max_tokens must be positive"
    assert _upstream_reason(422, b'{"detail": "bad field"}') == "bad field"
    assert _upstream_reason(500, b'{"error": "engine dead"}') == "engine dead"
    assert _upstream_reason(502, b"  Bad Gateway\n") == "Bad Gateway"
    assert _upstream_reason(503, b"") == "HTTP 503" and _upstream_reason(500, b"{}") == "HTTP 500"
    assert _upstream_reason(200, openai.encode()) is None  # an answer has no reason
    assert [_outcome(s) for s in (200, 404, 500)] == [
        "ok",
        "upstream_client_error",
        "upstream_server_error",
    ]
