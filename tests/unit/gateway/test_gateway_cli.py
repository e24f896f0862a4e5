"""`edgeswarm gateway`: the command line, one gateway per device, the embedded config."""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from runtime.endpoint import ModelNotPulledError
from runtime.gateway.budget import system_ram
from runtime.gateway.cli import add_gateway_parser, main
from runtime.gateway.config import parse_config, schema_text
from runtime.gateway.embedded import GiB, embedded_config, estimate_footprint, running_gateway
from runtime.gateway.lock import DeviceBusyError
from runtime.process import ManagedProcess, free_port
from runtime.settings import Device, load_settings
from tests.fakes import fake_command
from tests.support import ROOT
from tests.support.gateway import fake_pulled
from tests.support.network import allow_loopback_port
from tests.support.processes import dead_pid


def config_file(tmp_path: Path) -> Path:
    fake = fake_command()
    config = {
        "device": "cpu",
        "state_dir": str(tmp_path / "state"),
        "budget": {"bytes": "1GiB"},
        "models": [{"name": "a", "backend": "command", "command": fake, "footprint": "100MiB"}],
    }
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_subcommand_plugs_into_a_parent_parser() -> None:
    parser = argparse.ArgumentParser(prog="edgeswarm")
    add_gateway_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["gateway", "--config", "gw.yaml", "--port", "9000"])
    assert (args.config, args.host, args.port) == ("gw.yaml", "127.0.0.1", 9000)
    assert callable(args.handler)


def test_a_second_gateway_on_the_same_device_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_file(tmp_path)
    port = free_port()
    allow_loopback_port(port)
    first = ManagedProcess(
        "gateway",
        [sys.executable, "-m", "runtime.gateway.cli", "--config", str(config), "--port", str(port)],
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=tmp_path / "gateway.log",
        start_timeout_s=30,
        cwd=ROOT,
    )
    with first:
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", trust_env=False).json()
        assert [m["id"] for m in models["data"]] == ["a"]
        code = main(["--config", str(config), "--port", str(free_port())])
        err = capsys.readouterr().err
        # The embedded gateway reuses a running one that serves what it needs.
        settings = load_settings(state_dir=tmp_path / "state")
        assert running_gateway(settings, Device.CPU, ["a"]) == f"http://127.0.0.1:{port}/v1"
        with pytest.raises(DeviceBusyError, match="does not serve zzz"):
            running_gateway(settings, Device.CPU, ["a", "zzz"])
    assert running_gateway(settings, Device.CPU, ["a"]) is None
    assert code == 3
    assert "another edgeswarm gateway already owns device cpu" in err and str(port) in err


def test_an_invalid_config_exits_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"models": [{"name": "a", "backend": "vllm"}]}))
    assert main(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "models[0] (a).model" in err
    assert main([]) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, "cannot read the gateway config"),
        ("models: [a\n  b: :", "cannot read the gateway config"),
        ("- a list", "must be a mapping"),
        ("models: [{name: a, backend: remote, url: 'http://h/v1'}]\nbudgte: {}", "budgte"),
        ("models: [{name: a, backend: remote, url: 'not a url'}]", "models[0] (a).url"),
        ("models: [{name: '../a', backend: remote, url: 'http://h/v1'}]", "models[0] (../a).name"),
        (
            "auth: {token_file: nope}\nmodels: [{name: a, backend: remote, url: 'http://h/v1'}]",
            "auth.token_file: cannot read",
        ),
    ],
)
def test_config_problems_exit_2_naming_the_file_and_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, expected: str
) -> None:
    path = tmp_path / "gw.yaml"
    if text is not None:
        path.write_text(text)
    assert main(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"edgeswarm gateway: error: {path}: ") and expected in err, err


def test_print_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--print-schema"]) == 0
    assert capsys.readouterr().out == schema_text()


MB = 10**6


def test_the_embedded_config_covers_the_requested_models(tmp_path: Path) -> None:
    settings = load_settings(
        models_dir=tmp_path / "models", state_dir=tmp_path / "state", cpu_kvcache_gib=1
    )
    fake_pulled(settings.models_dir, "smollm2-135m-instruct", 1000)
    fake_pulled(settings.models_dir, "smollm2-135m-instruct-fp32", 2000)
    names = ["smollm2-135m-instruct", "smollm2-135m-instruct-fp32", "smollm2-135m-instruct"]
    raw = embedded_config(settings, names, device=Device.CPU, budget_bytes=6 * GiB)
    config = parse_config(raw, origin="embedded")
    assert [m.name for m in config.models] == names[:2]
    assert config.budget.bytes == 6 * GiB and config.state_dir == settings.state_dir
    by_ram = embedded_config(settings, names[:1], device=Device.CPU)
    budget = by_ram["budget"]["bytes"]  # from the RAM free at start (test_cpu_dtype)
    assert 0.5 * system_ram() <= budget <= 0.75 * system_ram()
    with pytest.raises(ModelNotPulledError, match="edgeswarm models pull qwen"):
        embedded_config(settings, ["qwen2.5-coder-0.5b-instruct"], device=Device.CPU)


def test_a_dtype_cast_in_the_server_args_is_in_the_footprint(tmp_path: Path) -> None:
    """``--dtype float32`` on a bfloat16 checkpoint holds twice the weights (CPUs without
    AVX-512 BF16 run it faster); the estimate follows what the server will hold."""
    models = tmp_path / "models"
    fake_pulled(models, "smollm2-135m-instruct", 10 * MB)
    fake_pulled(models, "smollm2-135m-instruct-fp32", 20 * MB)
    names = ["smollm2-135m-instruct", "smollm2-135m-instruct-fp32"]

    def footprints(*extra: str) -> list[int]:
        settings = load_settings(
            models_dir=models, state_dir=tmp_path / "state", vllm_extra_args=list(extra)
        )
        raw = embedded_config(settings, names, device=Device.CPU, budget_bytes=60 * GiB)
        return [entry["footprint"] for entry in raw["models"]]

    def near(got: list[int], want: list[int]) -> bool:  # the manifest's few bytes aside
        return all(abs(a - b) < 1000 for a, b in zip(got, want, strict=True))

    stored = footprints("--dtype", "auto")  # no --dtype: the CPU's choice (test_cpu_dtype)
    assert near(footprints("--dtype", "float32"), [stored[0] + 15 * MB, stored[1]])
    assert near(footprints("--dtype=bfloat16"), [stored[0], stored[1] - 15 * MB])


def test_footprint_estimates_err_on_the_safe_side_of_measurements() -> None:
    # Measured PSS on CPU: SmolLM2-135M bf16 (269 MB) with a 1 GiB KV cache: 3.2 GB;
    # Qwen2.5-Coder-0.5B bf16 (1.26 GB) with 2 GiB: 6.1 GB.
    assert estimate_footprint(269 * 10**6, Device.CPU, 1) >= 3.2e9
    assert estimate_footprint(1260 * 10**6, Device.CPU, 2) >= 6.1e9
    assert estimate_footprint(1260 * 10**6, Device.CPU, 2) < 8e9


HOLD = """
import os, sys, time
from pathlib import Path
from runtime.gateway.lock import DeviceLock, LockHolder
lock = DeviceLock(Path(sys.argv[1]), "cpu")
lock.acquire(LockHolder(int(sys.argv[2] or 0) or os.getpid(), sys.argv[3], sys.argv[4]))
print("held", flush=True)
time.sleep(float(sys.argv[5]))
"""


@contextlib.contextmanager
def hold_lock(
    state_dir: Path, *, url: str, config: str, seconds: float
) -> Iterator[subprocess.Popen[str]]:
    """A process that holds the cpu device lock for ``seconds``, as a gateway would."""
    args = [str(state_dir), "", url, config, str(seconds)]
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            yield holder
        finally:
            holder.kill()


def test_a_gateway_whose_run_crashed_is_waited_for_not_called_another_gateway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    # an embedded gateway that no live run leases (its run is gone): it is stopping, 2 s to go
    config = str(state / "gateway" / f"embedded-{dead_pid()}-40000.yaml")
    with hold_lock(state, url="http://127.0.0.1:9", config=config, seconds=2):
        started = time.monotonic()
        settings = load_settings(state_dir=state)
        assert running_gateway(settings, Device.CPU, ["a"]) is None  # start your own now
        assert 1 <= time.monotonic() - started < 30
        assert "waiting for the previous gateway" in capsys.readouterr().err


def test_a_live_gateway_that_does_not_answer_is_named_as_such(tmp_path: Path) -> None:
    state = tmp_path / "state"
    port = free_port()  # nothing listens there
    allow_loopback_port(port)
    with hold_lock(state, url=f"http://127.0.0.1:{port}", config="gw.yaml", seconds=60):
        settings = load_settings(state_dir=state)
        with pytest.raises(DeviceBusyError, match="does not list its models: it does not answer"):
            running_gateway(settings, Device.CPU, ["a"])


def test_a_dying_gateway_that_never_lets_go_is_named_after_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    monkeypatch.setattr("runtime.gateway.embedded.RELEASE_WAIT_S", 0.5)
    config = str(state / "gateway" / f"embedded-{dead_pid()}-40000.yaml")
    with hold_lock(state, url="http://127.0.0.1:9", config=config, seconds=60) as holder:
        settings = load_settings(state_dir=state)
        with pytest.raises(DeviceBusyError, match=f"gateway pid {holder.pid} still holds"):
            running_gateway(settings, Device.CPU, ["a"])
