"""The servers behind the gateway's models (:mod:`runtime.gateway.backends`).

How a backend is built from its config (where a vLLM model lives, the command line and the
environment a server gets, never the gateway's token), and what a :class:`ProcessBackend` does
with its server: start a fresh one, stop it (at once when hung), sleep and wake it through
vLLM's sleep-mode routes. Nothing is started here: launches are built and inspected, the
server's routes answered by an ``httpx.MockTransport``, a failing start faked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.gateway.backends import (
    BackendContext,
    BackendError,
    Launch,
    ProcessBackend,
    RemoteBackend,
    build_backend,
    build_backends,
    resolve_model_dir,
)
from runtime.gateway.config import (
    CommandModelConfig,
    RemoteModelConfig,
    VLLMModelConfig,
    parse_config,
)
from runtime.process import ManagedProcess, ServerStartError
from runtime.settings import Device

PORTS = iter(range(20000, 21000))


def test_each_vllm_server_gets_its_own_secret_out_of_its_command_line(tmp_path: Path) -> None:
    """Finding 7: a backend's loopback port answered anyone without a token; vLLM now checks
    a fresh secret (``VLLM_API_KEY``) on its ``/v1`` routes, and the gateway sends it."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    model = {"name": "m", "backend": "vllm", "model": str(tmp_path / "m"), "footprint": "1GiB"}
    entry = parse_config({"models": [model]}, origin="test", device=Device.CPU).models[0]
    assert isinstance(entry, VLLMModelConfig)
    ctx = BackendContext(device=Device.CPU, models_dir=tmp_path, log_dir=tmp_path)

    def launch(config: VLLMModelConfig) -> Launch:
        backend = build_backend(config, ctx)
        assert isinstance(backend, ProcessBackend)
        return backend._launch()  # built, not started

    first, second = launch(entry), launch(entry)
    assert first.api_key and second.api_key and first.api_key != second.api_key
    assert first.process.env["VLLM_API_KEY"] == first.api_key
    assert first.api_key not in " ".join(first.process.command)
    # the user's own key wins, and is the one sent
    mine = launch(entry.model_copy(update={"extra_args": ["--api-key", "users-own-key"]}))
    assert mine.api_key == "users-own-key" and "VLLM_API_KEY" not in mine.process.env


def model_dir(root: Path, name: str = "m") -> Path:
    """A directory that passes for a pulled model (it has a ``config.json``)."""
    (root / name).mkdir(parents=True)
    (root / name / "config.json").write_text("{}")
    return root / name


def context(tmp_path: Path, device: Device = Device.CPU) -> BackendContext:
    return BackendContext(
        device=device, models_dir=tmp_path, log_dir=tmp_path / "logs", port_for=lambda: 8123
    )


def launched(backend: object) -> Launch:
    """The launch a process backend would start (built, not started)."""
    assert isinstance(backend, ProcessBackend)
    return backend._launch()


def test_a_vllm_model_is_a_catalogue_name_or_a_directory(tmp_path: Path) -> None:
    def entry(model: str) -> VLLMModelConfig:
        raw = {"name": "m", "backend": "vllm", "model": model, "footprint": "1GiB"}
        config = parse_config({"models": [raw]}, origin="t", device=Device.CPU).models[0]
        assert isinstance(config, VLLMModelConfig)
        return config

    models = tmp_path / "models"
    assert resolve_model_dir(entry("smollm2"), models) == models / "smollm2"
    assert resolve_model_dir(entry("/srv/m"), models) == Path("/srv/m")
    assert resolve_model_dir(entry("org/m"), models) == Path("org/m")
    assert resolve_model_dir(entry("~/m"), models) == Path.home() / "m"
    with pytest.raises(FileNotFoundError, match="edgeswarm models pull smollm2"):
        build_backend(entry("smollm2"), context(tmp_path))  # not pulled: no config.json
    model_dir(models, "smollm2")
    backend = build_backend(entry("smollm2"), BackendContext(Device.CPU, models, tmp_path))
    assert isinstance(backend, ProcessBackend) and backend.kind == "process"


def test_a_backend_says_whether_its_server_takes_a_sampled_request_s_seed(tmp_path: Path) -> None:
    """A vLLM server the gateway starts on CPU prefills whole and takes seeds; one whose extra
    arguments chunk its prefills, or a command's unknown server on CPU, does not."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")

    def built(device: Device, **raw: Any) -> bool:
        model = {"name": "m", **raw}
        config = parse_config({"models": [model]}, origin="test", device=device).models[0]
        backend = build_backend(config, BackendContext(device, tmp_path, tmp_path))
        if isinstance(backend, ProcessBackend):
            command = backend._launch().process.command
            assert ("--no-enable-chunked-prefill" in command) == (
                device is Device.CPU and raw.get("backend") == "vllm" and "extra_args" not in raw
            )
        return backend.seeds_sampling

    vllm = {"backend": "vllm", "model": str(tmp_path / "m"), "footprint": "1GiB"}
    assert built(Device.CPU, **vllm)
    assert not built(Device.CPU, **vllm, extra_args=["--enable-chunked-prefill"])
    assert built(Device.CUDA, **vllm, extra_args=["--enable-chunked-prefill"])
    command = {"backend": "command", "command": ["serve", "--port", "{port}"], "footprint": "1GiB"}
    assert not built(Device.CPU, **command) and built(Device.CUDA, **command)
    assert built(Device.CPU, backend="remote", url="http://10.0.0.9:8000/v1")


def test_a_command_model_gets_its_port_name_and_health_url(tmp_path: Path) -> None:
    raw = {
        "name": "cmd",
        "backend": "command",
        "command": ["serve", "--port", "{port}", "--served-model-name={name}"],
        "footprint": "1GiB",
        "health_path": "/ready",
        "env": {"EXTRA": "1"},
    }
    entry = parse_config({"models": [raw]}, origin="t", device=Device.CPU).models[0]
    assert isinstance(entry, CommandModelConfig)
    launch = launched(build_backend(entry, context(tmp_path)))
    assert launch.process.command == ["serve", "--port", "8123", "--served-model-name=cmd"]
    assert launch.process.health_url == "http://127.0.0.1:8123/ready"
    assert launch.api_base == "http://127.0.0.1:8123/v1" and launch.api_key is None
    assert launch.process.log_path == tmp_path / "logs" / "cmd-8123.log"
    assert launch.process.env["EXTRA"] == "1" and "VLLM_SERVER_DEV_MODE" not in launch.process.env
    asleep = entry.model_copy(update={"swap": "sleep"})
    backend = build_backend(asleep, context(tmp_path))
    assert isinstance(backend, ProcessBackend) and backend.sleep_mode and backend.kind == "sleep"
    assert launched(backend).process.env["VLLM_SERVER_DEV_MODE"] == "1"


def test_no_server_inherits_the_gateway_s_token_whatever_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGESWARM_GATEWAY_TOKEN", "default-name-token-0123456789")
    monkeypatch.setenv("MY_TOKEN", "configured-name-token-0123456789")
    monkeypatch.setenv("INHERITED", "yes")
    model_dir(tmp_path)
    raw = {
        "device": "cpu",
        "auth": {"token_env": "MY_TOKEN"},
        "models": [
            {"name": "cmd", "backend": "command", "command": ["serve"], "footprint": "1GiB"},
            {"name": "m", "backend": "vllm", "model": str(tmp_path / "m"), "footprint": "1GiB"},
        ],
    }
    backends = build_backends(parse_config(raw, origin="t"), context(tmp_path))
    for name in ("cmd", "m"):
        env = launched(backends[name]).process.env
        assert "MY_TOKEN" not in env and "EDGESWARM_GATEWAY_TOKEN" not in env, name
        assert env["INHERITED"] == "yes", name


@pytest.fixture
def no_omp_policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No ``OMP_WAIT_POLICY`` of the caller's (a variable already set wins over the gateway's)."""
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    yield


def test_vllm_servers_on_the_same_cpu_wait_passively(tmp_path: Path, no_omp_policy: None) -> None:
    def vllm(name: str) -> dict[str, Any]:
        return {"name": name, "backend": "vllm", "model": str(tmp_path / name), "footprint": "1GiB"}

    model_dir(tmp_path, "one")
    model_dir(tmp_path, "two")
    alone = parse_config({"device": "cpu", "models": [vllm("one")]}, origin="t")
    env = launched(build_backends(alone, context(tmp_path))["one"]).process.env
    assert "OMP_WAIT_POLICY" not in env
    both = parse_config({"device": "cpu", "models": [vllm("one"), vllm("two")]}, origin="t")
    for backend in build_backends(both, context(tmp_path)).values():
        assert launched(backend).process.env["OMP_WAIT_POLICY"] == "PASSIVE"


def test_a_remote_model_is_routed_by_its_url_and_served_name() -> None:
    raw = {
        "name": "far",
        "backend": "remote",
        "url": "http://gpu-box:8000/v1/",
        "served_name": "org/model",
        "api_key": "remote-key",
    }
    entry = parse_config({"models": [raw]}, origin="t").models[0]
    assert isinstance(entry, RemoteModelConfig)
    backend = build_backend(entry, context(Path("/nonexistent")))
    assert isinstance(backend, RemoteBackend)
    assert (backend.api_base, backend.upstream_model, backend.api_key) == (
        "http://gpu-box:8000/v1",
        "org/model",
        "remote-key",
    )
    assert not backend.managed and backend.pid is None and backend.kind == "remote"
    plain = build_backend(entry.model_copy(update={"served_name": None}), context(Path("/")))
    assert plain.upstream_model == "far"


# -- a process backend and its server ------------------------------------------------------


class FakeProcess(ManagedProcess):
    """A server process that starts (or fails to) without running anything."""

    def __init__(self, port: int, *, fails: bool = False) -> None:
        super().__init__(
            "fake", ["serve"], health_url=f"http://server:{port}/health", log_path=Path("/x")
        )
        self.fails = fails
        self.started = False
        self.stops: list[bool] = []

    def start(self) -> None:
        if self.fails:
            raise ServerStartError("exited with code 1")
        self.started = True

    def alive(self) -> bool:
        return self.started and not self.stops

    def stop(self, *, force: bool = False) -> None:
        self.stops.append(force)


def fake_backend(*, fails: bool = False, sleep_mode: bool = True) -> ProcessBackend:
    """A backend whose every start launches a fresh :class:`FakeProcess` on a new port."""

    def launch() -> Launch:
        port = next(PORTS)
        return Launch(FakeProcess(port, fails=fails), f"http://server:{port}/v1", f"key-{port}")

    return ProcessBackend("m", launch, sleep_mode=sleep_mode)


async def test_each_start_is_a_fresh_server_and_a_hung_one_is_killed() -> None:
    backend = fake_backend()
    assert backend.pid is None and not backend.alive() and backend.log_path() is None
    await backend.start()
    first = backend._process
    assert isinstance(first, FakeProcess) and backend.alive()
    assert backend.api_base.endswith("/v1") and backend.root == backend.api_base[:-3]
    assert backend.api_key == f"key-{backend.root.rsplit(':', 1)[1]}"
    backend.hung = True  # the watchdog found it alive but unresponsive
    await backend.stop()
    assert first.stops == [True]  # KILL at once, no TERM grace
    await backend.start()
    second = backend._process
    assert isinstance(second, FakeProcess) and second is not first and not backend.hung
    assert second.health_url != first.health_url  # on a port of its own
    await backend.stop()
    assert second.stops == [False]


async def test_a_server_that_does_not_start_is_a_backend_error() -> None:
    with pytest.raises(BackendError, match="m: server did not start: exited with code 1"):
        await fake_backend(fails=True).start()


async def test_a_server_that_was_never_started_is_not_healthy() -> None:
    backend = fake_backend()
    async with httpx.AsyncClient() as client:
        assert not await backend.healthy(client)
    assert backend.run_state() == ""


class SleepServer:
    """vLLM's sleep-mode routes: what was called, and what ``/is_sleeping`` says."""

    def __init__(self, *, sleeps: bool = True, fail: str | None = None) -> None:
        self.sleeps = sleeps
        self.asleep = False
        self.fail = fail
        self.calls: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        call = f"{request.method} {request.url.path}"
        if request.url.query:
            call += f"?{request.url.query.decode()}"
        self.calls.append(call)
        if call == self.fail:
            return httpx.Response(500, text="engine dead")
        if request.url.path == "/sleep":
            self.asleep = self.sleeps
        elif request.url.path == "/wake_up":
            self.asleep = False
        return httpx.Response(200, json={"is_sleeping": self.asleep})


async def slept_and_woken(server: SleepServer, level: int) -> None:
    backend = fake_backend()
    await backend.start()
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        await backend.sleep(client, level)
        await backend.wake(client, level)


async def test_sleep_and_wake_call_vllm_s_routes_and_check_its_state() -> None:
    server = SleepServer()
    await slept_and_woken(server, 1)
    assert server.calls == [
        "POST /sleep?level=1",
        "GET /is_sleeping",
        "POST /wake_up",
        "GET /is_sleeping",
    ]
    deep = SleepServer()
    await slept_and_woken(deep, 2)  # level 2 dropped the weights: reloaded, cache reset
    assert deep.calls[2:] == [
        "POST /wake_up",
        "POST /collective_rpc",
        "POST /reset_prefix_cache",
        "GET /is_sleeping",
    ]


async def test_a_sleep_the_server_did_not_take_or_a_failing_route_is_a_backend_error() -> None:
    with pytest.raises(BackendError, match="/sleep returned but /is_sleeping says awake"):
        await slept_and_woken(SleepServer(sleeps=False), 1)
    with pytest.raises(BackendError, match="POST /wake_up answered 500: engine dead"):
        await slept_and_woken(SleepServer(fail="POST /wake_up"), 1)
