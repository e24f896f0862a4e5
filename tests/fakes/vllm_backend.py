"""A fake vLLM server for gateway tests, run as a real process on a free port.

Start: ``python tests/fakes/vllm_backend.py --port N --model NAME [--load-time S]
[--footprint BYTES] [--token-rate TOKENS_PER_S] [--latency S] [--tokens N] [--sleep-mode]
[--tag TEXT] [--answers FILE] [--gpu-bytes BYTES [--sim-gpu-dir DIR] [--gpu-context-bytes N]]``.

``--gpu-bytes`` (needs PyTorch and a CUDA GPU; for ``bench/gpu_check.py``) makes it hold that
much real GPU memory while awake, as vLLM's weights and KV cache: asleep at level 1 the bytes
move to host RAM, at level 2 they are dropped, and waking brings them back; like vLLM, the
process keeps its CUDA context while asleep. With ``--sim-gpu-dir`` nothing is allocated: the
process writes what it would hold (``--gpu-bytes`` plus ``--gpu-context-bytes`` awake, the
context bytes asleep) to the file ``DIR/PID``, where a test's fake NVML reads the device.

It behaves like ``vllm.entrypoints.openai.api_server`` where the gateway can tell:
``/health`` answers 503 until the load time has passed; ``/v1/chat/completions`` and
``/v1/completions`` answer after ``latency`` plus ``tokens / token-rate`` seconds, streamed as
server-sent events when ``stream`` is true; a ``response_format`` json_schema request gets a
minimal instance of the schema, or the answer ``--answers`` (a JSON object keyed by schema
name) holds for that schema's name: canned answers for whole swarm runs; a request with a
``structured_outputs`` grammar (the coder's code block) gets the answer under ``"code"``, and
so does a free request when ``"code"`` is given (the coder's plain prompt). With
``--sleep-mode`` it has vLLM's dev-mode sleep routes: ``POST /sleep?level=N``,
``POST /wake_up``, ``GET /is_sleeping`` (and ``/collective_rpc``, ``/reset_prefix_cache``);
asleep, it refuses completions. ``GET /_fake/info`` reports its pid, footprint (declared on
the command line: nothing is allocated), sleep state, requests served and the most requests it
ever had in flight at once (to see continuous batching survive).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route


class GpuHold:
    """Real GPU memory held like a model's weights: on the GPU awake, in host RAM asleep."""

    def __init__(self, nbytes: int) -> None:
        import torch  # only this mode needs it

        self._torch = torch
        self.nbytes = nbytes
        self.tensor: torch.Tensor | None = torch.ones(nbytes, dtype=torch.uint8, device="cuda")
        torch.cuda.synchronize()

    def on_gpu(self) -> int:
        """Bytes held on the GPU now."""
        held = self.tensor
        return self.nbytes if held is not None and held.is_cuda else 0

    def sleep(self, level: int) -> None:
        """Level 1: to host RAM; level 2: dropped. The CUDA context stays."""
        held = self.tensor
        kept = held.to("cpu") if level == 1 and held is not None else None
        self.tensor = kept
        self._torch.cuda.empty_cache()

    def wake(self) -> None:
        """Back on the GPU (refilled when level 2 dropped it)."""
        torch = self._torch
        held = self.tensor
        self.tensor = (
            held.to("cuda")
            if held is not None
            else torch.ones(self.nbytes, dtype=torch.uint8, device="cuda")
        )
        torch.cuda.synchronize()


class SimulatedGpuHold:
    """GPU memory on paper: ``DIR/PID`` holds the bytes a fake NVML reports for this process."""

    def __init__(self, nbytes: int, context: int, directory: Path) -> None:
        self.nbytes = nbytes
        self.context = context
        self.path = directory / str(os.getpid())
        self.awake = True
        self._write()

    def _write(self) -> None:
        held = self.context + (self.nbytes if self.awake else 0)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(str(held))
        partial.replace(self.path)  # a reader never sees a half-written figure

    def on_gpu(self) -> int:
        """Bytes of weights and KV cache on the GPU now (the context not counted)."""
        return self.nbytes if self.awake else 0

    def sleep(self, level: int) -> None:
        """Weights and KV cache leave the GPU; the context stays."""
        del level
        self.awake = False
        self._write()

    def wake(self) -> None:
        """Back on the GPU."""
        self.awake = True
        self._write()


class Backend:
    def __init__(self, args: argparse.Namespace) -> None:
        self.model: str = args.model
        self.footprint: int = args.footprint
        self.token_rate: float = args.token_rate
        self.latency: float = args.latency
        self.tokens: int = args.tokens
        self.sleep_mode: bool = args.sleep_mode
        self.tag: str = args.tag
        self.answers: dict[str, Any] = json.loads(args.answers.read_text()) if args.answers else {}
        self.ready_at = time.monotonic() + args.load_time
        self.gpu: GpuHold | SimulatedGpuHold | None = None
        if args.gpu_bytes and args.sim_gpu_dir is not None:
            self.gpu = SimulatedGpuHold(args.gpu_bytes, args.gpu_context_bytes, args.sim_gpu_dir)
        elif args.gpu_bytes:
            self.gpu = GpuHold(args.gpu_bytes)
        self.sleeping = False
        self.sleep_level = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.served = 0

    def info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "model": self.model,
            "footprint": self.footprint,
            "sleeping": self.sleeping,
            "sleep_level": self.sleep_level,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "served": self.served,
            "tag": self.tag,
            "gpu_bytes": self.gpu.on_gpu() if self.gpu is not None else 0,
        }


_SCALARS: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "null": None}


def instance(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A small value that satisfies ``schema`` (the subset agents use)."""
    if "$ref" in schema:
        return instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return instance(schema[key][0], defs)
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        return {name: instance(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [instance(schema.get("items", {}), defs)] * int(schema.get("minItems", 0))
    if kind == "string":
        return "x" * max(2, int(schema.get("minLength", 0)))
    return schema.get("minimum", _SCALARS.get(kind))


def answer_text(body: dict[str, Any], state: Backend) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        if spec.get("name") in state.answers:
            return json.dumps(state.answers[spec["name"]])
        schema = spec.get("schema") or {}
        return json.dumps(instance(schema, schema.get("$defs", {})))
    if "grammar" in (body.get("structured_outputs") or {}):  # the coder's fenced code block
        return str(state.answers.get("code", "```python\npass\n```"))
    if "code" in state.answers:  # a free answer: the coder's plain prompt
        return str(state.answers["code"])
    return f"fake answer from {state.model}"


class Routes:
    def __init__(self, state: Backend) -> None:
        self.state = state

    async def health(self, _: Request) -> Response:
        if time.monotonic() < self.state.ready_at:
            return JSONResponse({"status": "loading"}, status_code=503)
        return Response(status_code=200)

    async def models(self, _: Request) -> Response:
        data = [{"id": self.state.model, "object": "model"}]
        return JSONResponse({"object": "list", "data": data})

    async def complete(self, request: Request) -> Response:
        state = self.state
        body = await request.json()
        if state.sleeping:
            return JSONResponse({"error": {"message": "the model is sleeping"}}, status_code=503)
        if body.get("model") != state.model:
            message = f"The model `{body.get('model')}` does not exist."
            return JSONResponse({"error": {"message": message}}, status_code=404)
        chat = request.url.path.endswith("/chat/completions")
        text = answer_text(body, state)
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                stream(state, text, chat, usage), media_type="text/event-stream"
            )
        async with tracked(state):
            await asyncio.sleep(state.latency + state.tokens / state.token_rate)
        return JSONResponse(whole(state, text, chat))

    async def sleep(self, request: Request) -> Response:
        if not self.state.sleep_mode:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        self.state.sleeping = True
        self.state.sleep_level = int(request.query_params.get("level", "1"))
        if self.state.gpu is not None:
            await asyncio.to_thread(self.state.gpu.sleep, self.state.sleep_level)
        return Response(status_code=200)

    async def wake_up(self, _: Request) -> Response:
        if not self.state.sleep_mode:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        await asyncio.sleep(0.05 * self.state.sleep_level)
        if self.state.gpu is not None:
            await asyncio.to_thread(self.state.gpu.wake)
        self.state.sleeping = False
        return Response(status_code=200)

    async def is_sleeping(self, _: Request) -> Response:
        return JSONResponse({"is_sleeping": self.state.sleeping})

    async def ok(self, _: Request) -> Response:
        return JSONResponse({})

    async def info(self, _: Request) -> Response:
        return JSONResponse(self.state.info())

    async def metrics(self, _: Request) -> Response:
        return PlainTextResponse(f"fake_footprint_bytes {self.state.footprint}\n")


def build_app(state: Backend) -> Starlette:
    r = Routes(state)
    return Starlette(
        routes=[
            Route("/health", r.health),
            Route("/v1/models", r.models),
            Route("/v1/chat/completions", r.complete, methods=["POST"]),
            Route("/v1/completions", r.complete, methods=["POST"]),
            Route("/sleep", r.sleep, methods=["POST"]),
            Route("/wake_up", r.wake_up, methods=["POST"]),
            Route("/is_sleeping", r.is_sleeping),
            Route("/collective_rpc", r.ok, methods=["POST"]),
            Route("/reset_prefix_cache", r.ok, methods=["POST"]),
            Route("/_fake/info", r.info),
            Route("/metrics", r.metrics),
        ]
    )


@asynccontextmanager
async def tracked(state: Backend) -> AsyncIterator[None]:
    state.in_flight += 1
    state.max_in_flight = max(state.max_in_flight, state.in_flight)
    try:
        yield
    finally:
        state.in_flight -= 1
        state.served += 1


def _chunk(state: Backend, delta: str, chat: bool, finish: str | None) -> bytes:
    if chat:
        choice: dict[str, Any] = {"index": 0, "delta": {"content": delta}, "finish_reason": finish}
        kind = "chat.completion.chunk"
    else:
        choice = {"index": 0, "text": delta, "finish_reason": finish}
        kind = "text_completion"
    payload = {"id": "fake", "object": kind, "model": state.model, "choices": [choice]}
    return f"data: {json.dumps(payload)}\n\n".encode()


async def stream(
    state: Backend, text: str, chat: bool, usage: bool = False
) -> AsyncIterator[bytes]:
    """The answer in 4-character events; with ``usage``, vLLM's last event of token counts."""
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)] or [""]
    async with tracked(state):
        await asyncio.sleep(state.latency)
        step = state.tokens / state.token_rate / len(pieces)
        for piece in pieces:
            yield _chunk(state, piece, chat, None)
            await asyncio.sleep(step)
        yield _chunk(state, "", chat, "stop")
        if usage:  # as vLLM orders it: prompt, total, completion
            counts = {"prompt_tokens": 5, "total_tokens": 5 + state.tokens}
            counts["completion_tokens"] = state.tokens
            payload = {"id": "fake", "model": state.model, "choices": [], "usage": counts}
            yield f"data: {json.dumps(payload)}\n\n".encode()
        yield b"data: [DONE]\n\n"


def whole(state: Backend, text: str, chat: bool) -> dict[str, Any]:
    if chat:
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
    else:
        choice = {"index": 0, "text": text, "finish_reason": "stop"}
    return {
        "id": "fake",
        "object": "chat.completion" if chat else "text_completion",
        "created": int(time.time()),
        "model": state.model,
        "choices": [choice],
        "usage": {"prompt_tokens": 5, "completion_tokens": state.tokens, "total_tokens": 5},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--load-time", type=float, default=0.2)
    parser.add_argument("--footprint", type=int, default=1 << 30)
    parser.add_argument("--token-rate", type=float, default=200.0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--sleep-mode", action="store_true")
    parser.add_argument("--tag", default="")
    parser.add_argument("--answers", type=Path, help="JSON object: schema name -> answer")
    parser.add_argument("--gpu-bytes", type=int, default=0, help="real GPU memory to hold")
    parser.add_argument("--sim-gpu-dir", type=Path, help="simulate --gpu-bytes: DIR/PID files")
    parser.add_argument("--gpu-context-bytes", type=int, default=0, help="kept asleep (sim)")
    args = parser.parse_args()
    uvicorn.run(
        build_app(Backend(args)),
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=1,
    )


if __name__ == "__main__":
    main()
