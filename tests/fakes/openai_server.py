"""A fake OpenAI-compatible server (vLLM-like), run as a real process on a free port.

Start: ``python tests/fakes/openai_server.py --port N [--model NAME] [--latency S]
[--load-time S] [--spawn-child]``.

Besides ``/health``, ``/v1/models`` and ``/v1/chat/completions`` it has control routes:
``POST /_fake/script`` queues responses (JSON list of objects with ``content``,
``finish_reason``, ``status`` (with ``headers``), ``delay_s``, ``prompt_tokens``,
``completion_tokens``, and optional conditions ``schema`` and ``contains`` that pick which
request a step answers),
``GET /_fake/requests`` returns every request body received, ``POST /_fake/reset`` clears both.
When the script is empty, chat answers echo ``{"echo": <last user message>}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


class FakeState:
    def __init__(self, model: str, latency: float, load_time: float) -> None:
        self.model = model
        self.latency = latency
        self.ready_at = time.monotonic() + load_time
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []


def build_app(state: FakeState) -> Starlette:
    async def health(_: Request) -> Response:
        if time.monotonic() < state.ready_at:
            return JSONResponse({"status": "loading"}, status_code=503)
        return Response(status_code=200)

    async def models(_: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": state.model, "object": "model"}]})

    async def chat(request: Request) -> Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return JSONResponse({"error": {"message": "body is not JSON"}}, status_code=400)
        state.requests.append(body)
        step = _take_step(state.script, body)
        await asyncio.sleep(float(step.get("delay_s", state.latency)))
        status = int(step.get("status", 200))
        if status != 200:
            error = {"error": {"message": "scripted failure"}}
            return JSONResponse(error, status_code=status, headers=step.get("headers"))
        return JSONResponse(_completion(body, step, state.model))

    async def script(request: Request) -> Response:
        state.script.extend(await request.json())
        return JSONResponse({"queued": len(state.script)})

    async def recorded(_: Request) -> Response:
        return JSONResponse(state.requests)

    async def reset(_: Request) -> Response:
        state.script.clear()
        state.requests.clear()
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/health", health),
            Route("/v1/models", models),
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/_fake/script", script, methods=["POST"]),
            Route("/_fake/requests", recorded),
            Route("/_fake/reset", reset, methods=["POST"]),
        ]
    )


def _take_step(script: list[dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    """The first queued step whose conditions match the request (``schema``: the name of
    the response_format schema; ``contains``: text in the messages); {} when none does."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
    text = json.dumps(body.get("messages", []))
    for index, step in enumerate(script):
        if step.get("schema") not in (None, schema):
            continue
        if step.get("contains") is not None and step["contains"] not in text:
            continue
        return script.pop(index)
    return {}


def _completion(body: dict[str, Any], step: dict[str, Any], model: str) -> dict[str, Any]:
    messages = body.get("messages") or [{"content": ""}]
    content = step.get("content")
    if content is None:
        content = json.dumps({"echo": messages[-1].get("content", "")})
    prompt_tokens = int(step.get("prompt_tokens", 10))
    completion_tokens = int(step.get("completion_tokens", max(1, len(content) // 4)))
    return {
        "id": f"chatcmpl-fake-{len(content)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", model),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": step.get("finish_reason", "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--load-time", type=float, default=0.0)
    parser.add_argument("--spawn-child", action="store_true", help="start a sleeping child")
    parser.add_argument("--exit-at-start", type=int, help="exit at once with this code")
    args = parser.parse_args()
    if args.exit_at_start is not None:
        print("fake server: failing at start as asked", flush=True)
        sys.exit(args.exit_at_start)
    if args.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"child pid {child.pid}", flush=True)
    state = FakeState(args.model, args.latency, args.load_time)
    uvicorn.run(build_app(state), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
