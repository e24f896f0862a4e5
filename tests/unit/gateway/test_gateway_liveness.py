"""The gateway cuts a request by its liveness, never while it makes progress.

Fake vLLM backends as real processes; idle limits of a second, answers that stream for
several: a swap drains a streaming request to its end, a load that outlasts the idle limit is
waited for, and only a request whose server went silent is cut.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from app.evaluate import gateway_swaps
from tests.support.gateway import MB, Live, fake_model, live_gateway, write_config


async def _stream(live: Live, model: str) -> tuple[str, list[dict[str, Any]]]:
    """The streamed text and the error events of one request."""
    payload = {"model": model, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    text, errors = "", []
    async with live.http.stream("POST", f"{live.url}/v1/chat/completions", json=payload) as r:
        assert r.status_code == 200, await r.aread()
        async for line in r.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunk = json.loads(line[6:])
                if "error" in chunk:
                    errors.append(chunk["error"])
                elif chunk["choices"]:
                    text += chunk["choices"][0]["delta"].get("content", "")
    return text, errors


async def test_a_swap_lets_a_streaming_request_finish_past_the_idle_limit(
    tmp_path: Path, tag: str
) -> None:
    models = [
        fake_model("long", tag, tokens=300, token_rate=100),  # streams for 3 s
        fake_model("short", tag),
    ]
    config = write_config(tmp_path, models, 1000 * MB, max_wait_s=0.2, request_idle_s=1.0)
    async with live_gateway(config, tag) as live:
        await live.http.post(f"{live.url}/models/long/load")
        streaming = asyncio.create_task(_stream(live, "long"))
        await asyncio.sleep(0.5)
        quick = await live.chat("short")  # waits for the drain: alive, the other streams
        assert quick.status_code == 200, quick.text
        text, errors = await streaming
        assert not errors and text, errors
        swaps = await asyncio.to_thread(gateway_swaps, f"{live.url}/v1")
        assert swaps is not None and swaps["load"] == 2 and swaps["drain_cut"] == 0, swaps
    assert live.service.metrics.drain_cuts["long"] == 0
    assert live.service.metrics.swaps[("short", "load")] == 1


async def test_a_request_whose_server_went_silent_is_cut_at_the_idle_limit(
    tmp_path: Path, tag: str
) -> None:
    models = [fake_model("hang", tag)]
    config = write_config(tmp_path, models, 1000 * MB, request_idle_s=1.0)
    async with live_gateway(config, tag) as live:
        await live.http.post(f"{live.url}/models/hang/load")
        info = await live.model_info("hang")
        port = int(info["url"].rsplit(":", 1)[1].split("/")[0])
        script = [{"content": "x" * 40, "stall_after": 2}]
        async with httpx.AsyncClient(trust_env=False) as direct:
            await direct.post(f"http://127.0.0.1:{port}/_fake/script", json=script)
        text, errors = await asyncio.wait_for(_stream(live, "hang"), 20)
        assert text == "x" * 8
        assert errors and "made no progress" in errors[0]["message"], errors


async def test_a_load_longer_than_the_idle_limit_is_waited_for(tmp_path: Path, tag: str) -> None:
    models = [fake_model("slow", tag, load_time=2.5)]
    config = write_config(tmp_path, models, 1000 * MB, request_idle_s=1.0)
    async with live_gateway(config, tag) as live:
        reply = await live.chat("slow")
        assert reply.status_code == 200, reply.text
        progress = (await live.http.get(f"{live.url}/models/slow/progress")).json()
        assert progress["state"] == "ready" and progress["work"] > 0
        unknown = await live.http.get(f"{live.url}/models/nope/progress")
        assert unknown.status_code == 404
