"""The gateway with two real vLLM CPU models under a budget that fits one of them.

SmolLM2-135M-Instruct in bfloat16 and in float32 are the same weights with two honest
footprints. The embedded gateway serves both; mixed concurrent structured-output requests
(``response_format`` json_schema) must all succeed with schema-valid answers while the gateway
swaps between the models and never holds more than its budget.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest
from pydantic import BaseModel, ConfigDict, Field

from runtime.catalog import load_catalog
from runtime.gateway.embedded import GiB, embedded_gateway
from runtime.provision import ModelStore
from runtime.settings import load_settings
from tests.prometheus import sample

SWAPS = "edgeswarm_gateway_swaps_total"
MODELS = ["smollm2-135m-instruct", "smollm2-135m-instruct-fp32"]
BUDGET = 6 * GiB  # one server (about 4 GiB estimated each), never both


class Verdict(BaseModel):
    """What the model answers."""

    model_config = ConfigDict(extra="forbid")

    answer: Literal["yes", "no"]
    reason: str = Field(max_length=40)


RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "verdict", "strict": True, "schema": Verdict.model_json_schema()},
}
QUESTIONS = ["Is Paris in France?", "Is 7 an even number?", "Is water wet?"]


@pytest.fixture(scope="module")
def models_dir() -> Path:
    settings = load_settings()
    store, catalog = ModelStore(settings.models_dir), load_catalog()
    missing = [name for name in MODELS if not store.is_ready(catalog.get(name))]
    if missing:
        pytest.fail(f"pull the models first: edgeswarm models pull {' '.join(missing)}")
    return settings.models_dir


async def ask(http: httpx.AsyncClient, url: str, model: str, question: str) -> Verdict:
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": f"{question} Answer in JSON."}],
        "response_format": RESPONSE_FORMAT,
        "max_tokens": 80,
        "temperature": 0,
    }
    root = url.removesuffix("/v1")
    lease = await http.post(f"{root}/models/{model}/load")  # what graphs/llm.py does
    assert lease.status_code == 200, lease.text
    reply = await http.post(f"{url}/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    choice = reply.json()["choices"][0]
    assert choice["finish_reason"] == "stop", choice
    return Verdict.model_validate(json.loads(choice["message"]["content"]))


async def watch_budget(http: httpx.AsyncClient, root: str, seen: list[tuple[int, int]]) -> None:
    while True:
        running = (await http.get(f"{root}/running")).json()
        seen.append((running["resident_bytes"], running["budget_bytes"]))
        await asyncio.sleep(0.25)


async def test_two_real_models_swap_under_a_budget_for_one(
    models_dir: Path, tmp_path: Path
) -> None:
    settings = load_settings(
        models_dir=models_dir,
        state_dir=tmp_path,
        cpu_kvcache_gib=1,
        max_model_len=2048,
        call_idle_s=400,  # the second model waits for two loads on a busy machine
    )
    started = time.monotonic()
    with embedded_gateway(settings, MODELS, budget_bytes=BUDGET) as url:
        root = url.removesuffix("/v1")
        async with httpx.AsyncClient(timeout=400, trust_env=False) as http:
            listed = (await http.get(f"{url}/models")).json()
            assert sorted(m["id"] for m in listed["data"]) == sorted(MODELS)
            seen: list[tuple[int, int]] = []
            watcher = asyncio.create_task(watch_budget(http, root, seen))
            try:
                jobs = [ask(http, url, model, q) for q in QUESTIONS for model in MODELS]
                answers = await asyncio.gather(*jobs)
            finally:
                watcher.cancel()
            running = (await http.get(f"{root}/running")).json()
            metrics = (await http.get(f"{root}/metrics")).text
    assert len(answers) == 6 and all(isinstance(a, Verdict) for a in answers)
    assert seen and all(used <= budget for used, budget in seen)
    assert running["budget_violations"] == 0 and running["budget_bytes"] == BUDGET
    loads = {
        m["name"]: int(sample(metrics, SWAPS, model=m["name"], kind="load") or 0)
        for m in running["models"]
    }
    assert all(count >= 1 for count in loads.values()), loads  # swapped between them
    seconds = time.monotonic() - started
    sys.stderr.write(f"two real models: loads {loads}, {seconds:.0f} s\n")


async def in_flight(http: httpx.AsyncClient, root: str, model: str) -> dict[str, Any]:
    """The model's row of /running."""
    models = (await http.get(f"{root}/running")).json()["models"]
    row: dict[str, Any] = next(m for m in models if m["name"] == model)
    return row


async def test_a_real_server_killed_mid_request_fails_it_clearly_and_restarts(
    models_dir: Path, tmp_path: Path
) -> None:
    settings = load_settings(
        models_dir=models_dir,
        state_dir=tmp_path,
        cpu_kvcache_gib=1,
        max_model_len=2048,
        call_idle_s=400,
    )
    model = MODELS[0]
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "Count to one thousand."}],
        "max_tokens": 1000,
        "ignore_eos": True,
    }
    with embedded_gateway(settings, [model], budget_bytes=BUDGET) as url:
        root = url.removesuffix("/v1")
        async with httpx.AsyncClient(timeout=400, trust_env=False) as http:
            assert (await http.post(f"{root}/models/{model}/load")).status_code == 200
            pid = (await in_flight(http, root, model))["pid"]
            cut_short = asyncio.create_task(http.post(f"{url}/chat/completions", json=body))
            deadline = time.monotonic() + 60
            while (await in_flight(http, root, model))["in_flight"] != 1:
                assert time.monotonic() < deadline, "the request never reached the server"
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.0)  # generating now
            os.killpg(pid, signal.SIGKILL)
            cut = await cut_short
            assert cut.status_code in (502, 503), cut.text
            assert "died" in cut.json()["error"]["message"], cut.text
            verdict = await ask(http, url, model, QUESTIONS[0])  # restarts the server
            row = await in_flight(http, root, model)
            metrics = (await http.get(f"{root}/metrics")).text
    assert isinstance(verdict, Verdict)
    assert row["state"] == "ready" and row["pid"] != pid
    assert sample(metrics, SWAPS, model=model, kind="load") == 2
