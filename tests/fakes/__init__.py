"""Fake model servers that the tests and the benchmark start as real processes.

- ``openai_server.py``: a scripted OpenAI-compatible server; :class:`FakeOpenAI` drives a
  running one (queues its answers, reads the requests it received).
- ``vllm_backend.py``: a fake vLLM server for the gateway (load time, footprint, speed,
  sleep mode, canned answers, GPU memory real or simulated).

This package is the one place that knows where the scripts are and how their command lines
read: build them with :func:`openai_command` and :func:`vllm_command` (the benchmark imports
them too: ``from tests.fakes import vllm_command``), never from a path of your own.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from runtime.process import ManagedProcess

FAKES = Path(__file__).resolve().parent
OPENAI_SERVER = FAKES / "openai_server.py"
"""The scripted OpenAI-compatible server."""
VLLM_BACKEND = FAKES / "vllm_backend.py"
"""The fake vLLM server (also how :func:`tests.support.gateway.live_fakes` finds them)."""


def openai_command(port: int | str = "{port}", *extra: str, model: str | None = None) -> list[str]:
    """``python tests/fakes/openai_server.py --port PORT [--model MODEL] EXTRA...``.

    ``port`` may stay the gateway's ``{port}`` placeholder (a ``command`` model); ``extra`` are
    further options as written (``--latency``, ``--load-time``, ``--spawn-child``,
    ``--exit-at-start``).
    """
    command = [sys.executable, str(OPENAI_SERVER), "--port", str(port)]
    if model is not None:
        command += ["--model", model]
    return [*command, *extra]


def vllm_command(
    port: int | str = "{port}",
    model: str = "{name}",
    *,
    footprint: int | None = None,
    tag: str | None = None,
    load_time: float | None = None,
    token_rate: float | None = None,
    latency: float | None = None,
    tokens: int | None = None,
    answers: Path | str | None = None,
    gpu_bytes: int | None = None,
    sim_gpu_dir: Path | str | None = None,
    gpu_context_bytes: int | None = None,
    sleep_mode: bool = False,
) -> list[str]:
    """``python tests/fakes/vllm_backend.py`` with these options (None: the server's default).

    ``port`` and ``model`` default to the gateway's ``{port}`` and ``{name}`` placeholders, for
    a ``command`` model; the options are the server's (see its docstring): ``footprint`` (the
    bytes it declares), ``tag`` (a text to find its processes by), ``load_time`` (s),
    ``token_rate`` (tokens/s), ``latency`` (s), ``tokens`` (per answer), ``answers`` (a JSON
    file of canned answers), ``gpu_bytes`` (GPU memory to hold), ``sim_gpu_dir`` and
    ``gpu_context_bytes`` (simulated GPU memory), ``sleep_mode`` (vLLM's sleep routes).
    """
    options: dict[str, Any] = {
        "footprint": footprint,
        "tag": tag,
        "load_time": load_time,
        "token_rate": token_rate,
        "latency": latency,
        "tokens": tokens,
        "answers": answers,
        "gpu_bytes": gpu_bytes,
        "sim_gpu_dir": sim_gpu_dir,
        "gpu_context_bytes": gpu_context_bytes,
    }
    command = [sys.executable, str(VLLM_BACKEND), "--port", str(port), "--model", model]
    for key, value in options.items():
        if value is not None:
            command += [f"--{key.replace('_', '-')}", str(value)]
    if sleep_mode:
        command.append("--sleep-mode")
    return command


@dataclass
class FakeOpenAI:
    """Handle on a running scripted OpenAI-compatible server (``openai_server.py``)."""

    process: ManagedProcess
    port: int
    model: str
    timeout_s: float = 5.0
    """Of each call to its ``/_fake`` routes (5 s: httpx's default)."""

    @property
    def base_url(self) -> str:
        """Its OpenAI-compatible root (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def script(self, *steps: dict[str, Any]) -> None:
        """Queue the next responses."""
        httpx.post(
            self._url("/_fake/script"), json=list(steps), trust_env=False, timeout=self.timeout_s
        ).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        """Every request body the server received since the last reset."""
        reply = httpx.get(self._url("/_fake/requests"), trust_env=False, timeout=self.timeout_s)
        reply.raise_for_status()
        bodies: list[dict[str, Any]] = reply.json()
        return bodies

    def reset(self) -> None:
        """Forget the script and the recorded requests."""
        httpx.post(
            self._url("/_fake/reset"), trust_env=False, timeout=self.timeout_s
        ).raise_for_status()
