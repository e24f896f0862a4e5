"""The fake model server that the tests and the benchmark start as real processes.

- ``model_server.py``: one server, two personas (its docstring): by default a fake vLLM for
  the gateway (load time, footprint, speed, streaming, sleep mode, canned answers, GPU memory
  real or simulated); with ``scripted=True`` the scripted OpenAI-compatible server of the
  graph, CLI and process tests (any model name, an echo where nothing is scripted). Both take
  a script of answers and record the requests they get; :class:`FakeOpenAI` drives either.

This package is the one place that knows where the script is and how its command line reads:
build it with :func:`fake_command` (the benchmark imports it too: ``from tests.fakes import
fake_command``), never from a path of your own.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from runtime.process import ManagedProcess

FAKES = Path(__file__).resolve().parent
MODEL_SERVER = FAKES / "model_server.py"
"""The fake model server (also how :func:`tests.support.gateway.live_fakes` finds them)."""


def fake_command(
    port: int | str = "{port}",
    model: str = "{name}",
    *,
    scripted: bool = False,
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
    spawn_child: bool = False,
    exit_at_start: int | None = None,
) -> list[str]:
    """``python tests/fakes/model_server.py`` with these options (None: the server's default).

    ``port`` and ``model`` default to the gateway's ``{port}`` and ``{name}`` placeholders, for
    a ``command`` model; the options are the server's (see its docstring): ``scripted`` (the
    scripted persona), ``footprint`` (the bytes it declares), ``tag`` (a text to find its
    processes by), ``load_time`` (s), ``token_rate`` (tokens/s), ``latency`` (s), ``tokens``
    (per answer), ``answers`` (a JSON file of canned answers), ``gpu_bytes`` (GPU memory to
    hold), ``sim_gpu_dir`` and ``gpu_context_bytes`` (simulated GPU memory), ``sleep_mode``
    (vLLM's sleep routes), ``spawn_child`` (a sleeping child process), ``exit_at_start`` (exit
    at once with this code).
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
        "exit_at_start": exit_at_start,
    }
    flags = {"scripted": scripted, "sleep_mode": sleep_mode, "spawn_child": spawn_child}
    command = [sys.executable, str(MODEL_SERVER), "--port", str(port), "--model", model]
    for key, value in options.items():
        if value is not None:
            command += [f"--{key.replace('_', '-')}", str(value)]
    return command + [f"--{key.replace('_', '-')}" for key, on in flags.items() if on]


@dataclass
class FakeOpenAI:
    """Handle on a running fake model server (``model_server.py``, either persona)."""

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
