"""The fake model server of the tests and the benchmark, run as a real process on a free port.

Start it through :func:`tests.fakes.fake_command` (the one place that builds its command
line): ``python tests/fakes/model_server.py --port N [--model NAME] [--scripted]
[--load-time S] [--latency S] [--token-rate TOKENS_PER_S] [--tokens N] [--answers FILE]
[--footprint BYTES] [--tag TEXT] [--sleep-mode] [--gpu-bytes BYTES [--sim-gpu-dir DIR]
[--gpu-context-bytes N]] [--spawn-child] [--exit-at-start CODE]``.

Two personas, one option. By default it is a fake vLLM for the gateway: it behaves like
``vllm.entrypoints.openai.api_server`` where the gateway can tell. With ``--scripted`` it is
the scripted OpenAI-compatible server of the graph, CLI and process tests (the ``fake_openai``
fixture): it answers any model name (the answer names the request's model), loads at once
unless ``--load-time`` is given, spends ``--latency`` and no generation time on an answer,
counts 10 prompt tokens and a completion token per 4 characters, and, where nothing scripted
or canned answers a request, echoes ``{"echo": <the last user message>}``. The routes, the
script and the canned answers are the same in both.

Routes: ``/health`` answers 503 until the load time has passed (default 0.2 s; 0 with
``--scripted``); ``/v1/models`` lists ``--model``; ``/v1/chat/completions`` and
``/v1/completions`` answer after ``--latency`` plus, vLLM persona only, ``tokens /
token-rate`` seconds of generation, streamed as server-sent events in 4-character pieces when
``stream`` is true (with vLLM's last event of token counts when ``stream_options.include_usage``
is). The control routes: ``POST /_fake/script`` queues steps (a JSON list), ``GET
/_fake/requests`` returns every completion request body received, ``POST /_fake/reset``
clears both, ``GET /_fake/info`` reports its pid, footprint (declared on the command line:
nothing is allocated), sleep state, requests served and the most requests it ever had in
flight at once (to see continuous batching survive), ``GET /metrics`` its footprint (and, vLLM
persona, ``vllm:generation_tokens_total``: the pieces it streamed, its work for liveness;
``vllm:num_requests_running``, ``vllm:num_requests_waiting`` and ``vllm:gpu_cache_usage_perc``
as vLLM names them). With
``--sleep-mode`` it has vLLM's dev-mode sleep routes: ``POST /sleep?level=N``, ``POST
/wake_up``, ``GET /is_sleeping`` (and ``/collective_rpc``, ``/reset_prefix_cache``); asleep,
it refuses completions.

How a completion request is answered, first match wins:

1. refused: 400 when the body is not JSON; 503 while asleep; 404 for another model name than
   ``--model`` (vLLM persona only). The body is recorded all the same.
2. the first queued step whose conditions match, taken off the queue: ``schema`` (the name of
   the request's ``response_format`` json_schema, ``""`` for a request without one) and
   ``contains`` (a text in its messages or prompt). Its ``status`` (with ``headers``) fails
   the request; its ``content``, ``finish_reason``, ``delay_s`` (in place of ``--latency``),
   ``piece_s`` and ``stall_after`` (a streamed answer's pace: seconds between its pieces, and
   the piece after which it goes silent for good, as a hung server), ``hold_after_done_s``
   (the stream's connection stays open that long after ``[DONE]``),
   ``prompt_tokens`` and ``completion_tokens`` replace the defaults; what it leaves out falls
   through to what follows.
3. ``--answers`` (a JSON object: canned answers for whole swarm runs): the answer under the
   json_schema's name; for a request with a ``structured_outputs`` grammar (the coder's code
   block), or a free request, the answer under ``"code"``.
4. the default: a minimal instance of the json_schema (any schema, so a call nobody scripted,
   such as a new role's, gets a valid answer); else with ``--scripted`` the echo; otherwise
   ``"```python\\npass\\n```"`` for a grammar, ``"fake answer from MODEL"`` for free text.

Usage: prompt tokens 5 (``--scripted``: 10), completion tokens ``--tokens`` (``--scripted``:
a token per 4 characters of the answer), total their sum.

``--gpu-bytes`` (needs PyTorch and a CUDA GPU; for ``bench/gpu_check.py``) makes it hold that
much real GPU memory while awake, as vLLM's weights and KV cache: asleep at level 1 the bytes
move to host RAM, at level 2 they are dropped, and waking brings them back; like vLLM, the
process keeps its CUDA context while asleep. With ``--sim-gpu-dir`` nothing is allocated: the
process writes what it would hold (``--gpu-bytes`` plus ``--gpu-context-bytes`` awake, the
context bytes asleep) to the file ``DIR/PID``, where a test's fake NVML reads the device.

``--tag`` is a text to find its processes by in ``/proc`` (``tests.support.gateway``);
``--spawn-child`` starts a sleeping child process and prints its pid; ``--exit-at-start CODE``
exits at once with that code (both for the process tests).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
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


class Server:
    """What the server was started with, its script, and what it has seen."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.model: str = args.model
        self.scripted: bool = args.scripted
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
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.sleeping = False
        self.sleep_level = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.served = 0
        self.work = 0
        """Tokens "prefilled and generated" so far: vLLM's work counters on /metrics."""

    @property
    def generation_s(self) -> float:
        """Seconds to generate an answer after its first token's latency (none scripted)."""
        return 0.0 if self.scripted else self.tokens / self.token_rate

    def info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "model": self.model,
            "scripted": self.scripted,
            "footprint": self.footprint,
            "sleeping": self.sleeping,
            "sleep_level": self.sleep_level,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "served": self.served,
            "tag": self.tag,
            "gpu_bytes": self.gpu.on_gpu() if self.gpu is not None else 0,
        }

    def take_step(self, body: dict[str, Any]) -> dict[str, Any]:
        """The first queued step whose conditions match the request, off the queue; {} when
        none does."""
        text = json.dumps(body.get("messages", body.get("prompt", [])))
        for index, step in enumerate(self.script):
            if step.get("schema") not in (None, schema_name(body)):
                continue
            if step.get("contains") is not None and step["contains"] not in text:
                continue
            return self.script.pop(index)
        return {}

    def answer_text(self, body: dict[str, Any], step: dict[str, Any]) -> str:
        """The answer's text, first match wins (the module's docstring)."""
        if step.get("content") is not None:
            return str(step["content"])
        fmt = body.get("response_format") or {}
        spec = (fmt.get("json_schema") or {}) if fmt.get("type") == "json_schema" else None
        grammar = "grammar" in (body.get("structured_outputs") or {})
        if spec is not None and spec.get("name") in self.answers:
            return json.dumps(self.answers[spec["name"]])
        if spec is None and "code" in self.answers:  # the coder: fenced block or plain prompt
            return str(self.answers["code"])
        if spec is not None:  # any role's schema, a new one too: a valid answer by default
            schema = spec.get("schema") or {}
            return json.dumps(instance(schema, schema.get("$defs", {})))
        if self.scripted:
            return json.dumps({"echo": last_text(body)})
        if grammar:
            return "```python\npass\n```"
        return f"fake answer from {self.model}"

    def usage(self, step: dict[str, Any], text: str) -> dict[str, int]:
        """Token counts, as vLLM orders them: prompt, total, completion."""
        prompt = int(step.get("prompt_tokens", 10 if self.scripted else 5))
        default = max(1, len(text) // 4) if self.scripted else self.tokens
        completion = int(step.get("completion_tokens", default))
        return {
            "prompt_tokens": prompt,
            "total_tokens": prompt + completion,
            "completion_tokens": completion,
        }


def schema_name(body: dict[str, Any]) -> str:
    """The name of the request's json_schema, ``""`` when it has none."""
    spec = (body.get("response_format") or {}).get("json_schema") or {}
    return str(spec.get("name", ""))


def last_text(body: dict[str, Any]) -> Any:
    """The last message's content (a chat request) or the prompt (a completion)."""
    if "messages" not in body:
        return body.get("prompt", "")
    messages = body["messages"] or [{"content": ""}]
    return messages[-1].get("content", "")


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


class Routes:
    def __init__(self, state: Server) -> None:
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
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return JSONResponse({"error": {"message": "body is not JSON"}}, status_code=400)
        state.requests.append(body)
        if state.sleeping:
            return JSONResponse({"error": {"message": "the model is sleeping"}}, status_code=503)
        if not state.scripted and body.get("model") != state.model:
            message = f"The model `{body.get('model')}` does not exist."
            return JSONResponse({"error": {"message": message}}, status_code=404)
        step = state.take_step(body)
        latency = float(step.get("delay_s", state.latency))
        status = int(step.get("status", 200))
        if status != 200:
            await asyncio.sleep(latency)
            error = {"error": {"message": "scripted failure"}}
            return JSONResponse(error, status_code=status, headers=step.get("headers"))
        answer = Answer(
            model=body.get("model", state.model),
            text=state.answer_text(body, step),
            chat=request.url.path.endswith("/chat/completions"),
            finish=str(step.get("finish_reason", "stop")),
        )
        usage = state.usage(step, answer.text)
        if body.get("stream"):
            with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            pace = _pace(step, state.generation_s)
            hold_s = float(step.get("hold_after_done_s", 0.0))
            events = stream(state, answer, latency, usage if with_usage else None, pace, hold_s)
            return StreamingResponse(events, media_type="text/event-stream")
        async with tracked(state):
            await asyncio.sleep(latency)
            await generate(state, state.generation_s)
        return JSONResponse(answer.whole(usage))

    async def script(self, request: Request) -> Response:
        self.state.script.extend(await request.json())
        return JSONResponse({"queued": len(self.state.script)})

    async def recorded(self, _: Request) -> Response:
        return JSONResponse(self.state.requests)

    async def reset(self, _: Request) -> Response:
        self.state.script.clear()
        self.state.requests.clear()
        return JSONResponse({"ok": True})

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
        text = f"fake_footprint_bytes {self.state.footprint}\n"
        if not self.state.scripted:  # the vLLM persona counts its work as vLLM does
            state, label = self.state, f'{{model_name="{self.state.model}"}}'
            kv_cache = 0.0 if state.sleeping else min(1.0, 0.1 * state.in_flight)
            for name, kind, value, what in (
                ("num_requests_running", "gauge", state.in_flight, "requests in the batch"),
                ("num_requests_waiting", "gauge", 0, "requests waiting to be batched"),
                ("gpu_cache_usage_perc", "gauge", kv_cache, "KV-cache usage, 1 is 100%"),
                ("generation_tokens_total", "counter", state.work, "tokens generated"),
            ):
                text += f"# HELP vllm:{name} Fake vLLM: {what}.\n# TYPE vllm:{name} {kind}\n"
                text += f"vllm:{name}{label} {float(value)}\n"
        return PlainTextResponse(text)


def build_app(state: Server) -> Starlette:
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
            Route("/_fake/script", r.script, methods=["POST"]),
            Route("/_fake/requests", r.recorded),
            Route("/_fake/reset", r.reset, methods=["POST"]),
            Route("/_fake/info", r.info),
            Route("/metrics", r.metrics),
        ]
    )


@asynccontextmanager
async def tracked(state: Server) -> AsyncIterator[None]:
    state.in_flight += 1
    state.max_in_flight = max(state.max_in_flight, state.in_flight)
    try:
        yield
    finally:
        state.in_flight -= 1
        state.served += 1


class Answer:
    """One answer's text and how it is framed: a chat or a text completion."""

    def __init__(self, *, model: Any, text: str, chat: bool, finish: str) -> None:
        self.model = model
        self.text = text
        self.chat = chat
        self.finish = finish
        self.id = f"{'chatcmpl' if chat else 'cmpl'}-fake-{len(text)}"

    def whole(self, usage: dict[str, int]) -> dict[str, Any]:
        if self.chat:
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": self.text},
                "finish_reason": self.finish,
            }
        else:
            choice = {"index": 0, "text": self.text, "finish_reason": self.finish}
        return {
            "id": self.id,
            "object": "chat.completion" if self.chat else "text_completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [choice],
            "usage": usage,
        }

    def chunk(self, delta: str, finish: str | None) -> bytes:
        if self.chat:
            choice: dict[str, Any] = {
                "index": 0,
                "delta": {"content": delta},
                "finish_reason": finish,
            }
            kind = "chat.completion.chunk"
        else:
            choice = {"index": 0, "text": delta, "finish_reason": finish}
            kind = "text_completion"
        payload = {"id": self.id, "object": kind, "model": self.model, "choices": [choice]}
        return f"data: {json.dumps(payload)}\n\n".encode()


async def generate(state: Server, seconds: float) -> None:
    """Spend ``seconds`` generating a whole answer, counting work as it goes (as vLLM does)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        await asyncio.sleep(min(0.05, left))
        state.work += 1


def _pace(step: dict[str, Any], generation_s: float) -> tuple[float | None, int | None]:
    """A step's streaming pace: (seconds between pieces, pieces after which it stalls)."""
    piece_s = step.get("piece_s")
    stall = step.get("stall_after")
    return (
        float(piece_s) if piece_s is not None else None,
        int(stall) if stall is not None else None,
    )


async def stream(
    state: Server,
    answer: Answer,
    latency: float,
    usage: dict[str, int] | None,
    pace: tuple[float | None, int | None] = (None, None),
    hold_s: float = 0.0,
) -> AsyncIterator[bytes]:
    """The answer in 4-character events; with ``usage``, vLLM's last event of token counts.

    ``pace``: a scripted step's ``piece_s`` (seconds between pieces, in place of the token
    rate's) and ``stall_after`` (after that many pieces the stream goes silent and the server
    does no more work, as a hung server would, until the client leaves). ``hold_s``: how long
    the connection stays open after ``[DONE]`` (a step's ``hold_after_done_s``).
    """
    text = answer.text
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)] or [""]
    piece_s, stall_after = pace
    async with tracked(state):
        await asyncio.sleep(latency)
        pause = piece_s if piece_s is not None else state.generation_s / len(pieces)
        for number, piece in enumerate(pieces):
            if stall_after is not None and number >= stall_after:
                await asyncio.sleep(3600)
            state.work += 1
            yield answer.chunk(piece, None)
            await asyncio.sleep(pause)
        yield answer.chunk("", answer.finish)
        if usage is not None:
            payload = {"id": answer.id, "model": answer.model, "choices": [], "usage": usage}
            yield f"data: {json.dumps(payload)}\n\n".encode()
        yield b"data: [DONE]\n\n"
        if hold_s:
            await asyncio.sleep(hold_s)


def options(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line read (``sys.argv`` by default), each persona's defaults filled in."""
    parser = argparse.ArgumentParser(description="The fake model server of the tests.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--scripted", action="store_true", help="the scripted persona")
    parser.add_argument("--load-time", type=float, help="default 0.2 s (--scripted: 0)")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--token-rate", type=float, default=200.0)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--answers", type=Path, help="JSON object: schema name -> answer")
    parser.add_argument("--footprint", type=int, default=1 << 30)
    parser.add_argument("--tag", default="")
    parser.add_argument("--sleep-mode", action="store_true")
    parser.add_argument("--gpu-bytes", type=int, default=0, help="real GPU memory to hold")
    parser.add_argument("--sim-gpu-dir", type=Path, help="simulate --gpu-bytes: DIR/PID files")
    parser.add_argument("--gpu-context-bytes", type=int, default=0, help="kept asleep (sim)")
    parser.add_argument("--spawn-child", action="store_true", help="start a sleeping child")
    parser.add_argument("--exit-at-start", type=int, help="exit at once with this code")
    args = parser.parse_args(argv)
    if args.load_time is None:
        args.load_time = 0.0 if args.scripted else 0.2
    return args


def serve(args: argparse.Namespace) -> None:
    if args.exit_at_start is not None:
        print("fake server: failing at start as asked", flush=True)
        sys.exit(args.exit_at_start)
    if args.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"child pid {child.pid}", flush=True)
    uvicorn.run(
        build_app(Server(args)),
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=1,
    )


def main() -> None:
    serve(options())


if __name__ == "__main__":
    main()
