"""One gateway per device on the machine: the flock'd lock file in the machine-wide directory.

Every test here has its own lock directory (the ``gateway_locks`` fixture, ``EDGESWARM_LOCK_DIR``);
the default places are checked with ``/run`` and the temp dir moved into ``tmp_path``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pynvml
import pytest

from runtime.gateway import lock as lock_module
from runtime.gateway.cli import EXIT_ENVIRONMENT, main
from runtime.gateway.embedded import embedded_gateway, leases_dir
from runtime.gateway.leases import live_leases
from runtime.gateway.lock import (
    DeviceBusyError,
    DeviceLock,
    LockHolder,
    device_key,
    is_locked,
    lock_dir,
    lock_path,
    read_holder,
    start_lock,
    start_lock_path,
)
from runtime.process import free_port
from runtime.settings import Device, load_settings
from tests.support.gateway import MB, fake_model, gateway_process, write_config
from tests.support.network import allow_loopback_port, allowed_port


def test_a_second_claim_on_the_same_device_is_refused(tmp_path: Path) -> None:
    holder = LockHolder(os.getpid(), "http://127.0.0.1:8100", "/etc/gw.yaml")
    with DeviceLock(tmp_path, "cpu") as first:
        first.acquire(holder)
        assert is_locked(first.path) and read_holder(first.path) == holder
        with pytest.raises(DeviceBusyError, match=r"already owns device cpu.*8100.*gw\.yaml"):
            DeviceLock(tmp_path, "cpu").acquire(holder)
        other = DeviceLock(tmp_path, "cuda0")  # another device is free
        other.acquire(holder)
        other.release()
    assert not is_locked(first.path) and read_holder(first.path) is None
    again = DeviceLock(tmp_path, "cpu")
    again.acquire(holder)
    again.release()
    again.release()  # twice is fine


@pytest.fixture
def umask_077() -> Iterator[None]:
    """A strict umask, as a user's may be: the lock's modes must not depend on it."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("umask_077")
def test_the_directory_is_sticky_and_world_writable_and_the_files_are_everyone_s(
    tmp_path: Path,
) -> None:
    directory = lock_dir(tmp_path / "deep" / "locks")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o1777  # as /tmp
    holder = LockHolder(os.getpid(), "http://127.0.0.1:8100", "gw.yaml")
    with DeviceLock(directory, "cpu") as device:
        device.acquire(holder)
        assert stat.S_IMODE(device.path.stat().st_mode) == 0o666
    with start_lock(directory, "cpu", wait_s=1):
        assert stat.S_IMODE(start_lock_path(directory, "cpu").stat().st_mode) == 0o666
    assert lock_dir(directory) == directory  # an existing one is taken as it is
    (directory / "gateway-cuda0.lock").symlink_to(tmp_path / "victim")
    with pytest.raises(DeviceBusyError, match="cannot open the lock file of device cuda0"):
        DeviceLock(directory, "cuda0").acquire(holder)  # a planted link is not followed
    assert not (tmp_path / "victim").exists()


def test_the_default_place_is_run_edgeswarm_when_writable_else_the_temp_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    monkeypatch.setattr(lock_module, "RUN_LOCK_DIR", run / "edgeswarm")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    # no /run here (or not ours to write): the temp dir
    assert lock_dir() == tmp_path / "tmp" / "edgeswarm-locks"
    run.mkdir()
    assert lock_dir() == run / "edgeswarm"
    assert stat.S_IMODE((run / "edgeswarm").stat().st_mode) == 0o1777
    # the override wins, and comes from the settings: explicit, then the environment
    assert lock_dir(tmp_path / "mine") == tmp_path / "mine"
    monkeypatch.setenv("EDGESWARM_LOCK_DIR", str(tmp_path / "env"))
    assert load_settings().lock_dir == tmp_path / "env"
    assert load_settings(lock_dir=tmp_path / "flag").lock_dir == tmp_path / "flag"
    monkeypatch.delenv("EDGESWARM_LOCK_DIR")
    assert load_settings().lock_dir is None


def test_the_cpu_key_is_the_host_and_a_gpu_s_is_its_uuid(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def handle(index: int) -> str:
        asked.append(index)
        return f"handle{index}"

    uuids = {"handle1": b"GPU-8f6c2d1e-0b7a-4c3d-9e2f-1a2b3c4d5e6f"}
    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetHandleByIndex", handle)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetUUID", uuids.__getitem__)
    assert device_key(Device.CPU) == "cpu"
    assert device_key(Device.CUDA, 1) == "GPU-8f6c2d1e-0b7a-4c3d-9e2f-1a2b3c4d5e6f"
    assert asked == [1]

    def no_driver() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)

    monkeypatch.setattr(pynvml, "nvmlInit", no_driver)
    assert device_key(Device.CUDA, 1) == "cuda1"  # NVML cannot say: the index


@pytest.mark.timeout(90)
def test_a_gateway_with_another_state_dir_is_refused_naming_the_first(
    tmp_path: Path, tag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first_config = write_config(tmp_path / "one", [fake_model("a", tag)], 1000 * MB)
    second_config = write_config(tmp_path / "two", [fake_model("a", tag)], 1000 * MB)
    port = free_port()
    with gateway_process(first_config, tmp_path / "one.log") as first:
        code = main(["--config", str(second_config), "--port", str(port)])
        err = capsys.readouterr().err
        url, pid = first.health_url.removesuffix("/health"), first.pid
    assert code == EXIT_ENVIRONMENT
    assert f"already owns device cpu on this machine (pid {pid}, {url}, " in err
    assert f"config {first_config.resolve()})" in err
    assert not (tmp_path / "two" / "state" / "gateway").exists()  # nothing of the second's


@pytest.mark.timeout(120)
def test_a_run_with_another_state_dir_leases_the_running_embedded_gateway(
    tmp_path: Path, tag: str, gateway_locks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runtime.gateway.embedded.free_port", allowed_port)
    one = load_settings(state_dir=tmp_path / "one")
    two = load_settings(state_dir=tmp_path / "two")
    config = {
        "device": "cpu",
        "state_dir": str(one.state_dir),
        "budget": {"bytes": 1000 * MB},
        "models": [fake_model("a", tag)],
    }
    with embedded_gateway(one, ["a"], config=config) as url:
        holder = read_holder(lock_path(gateway_locks, device_key(Device.CPU)))
        assert holder is not None and url == f"{holder.url}/v1"
        assert Path(holder.config).parent == one.state_dir / "gateway"
        with embedded_gateway(two, ["a"], config=config) as joined:
            assert joined == url  # found through the machine-wide lock, and leased
            assert len(live_leases(leases_dir(Path(holder.config)))) == 2
        assert not (two.state_dir / "gateway").exists()  # its lease was in the starter's
    assert not list((one.state_dir / "gateway").glob("embedded-*"))


def test_a_lock_directory_that_is_not_writable_stops_the_gateway_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path, [fake_model("a", "unused")], 1000 * MB)
    (tmp_path / "not-a-dir").write_text("")
    monkeypatch.setenv("EDGESWARM_LOCK_DIR", str(tmp_path / "not-a-dir"))
    port = free_port()
    allow_loopback_port(port)
    assert main(["--config", str(config), "--port", str(port)]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert "cannot take the device lock" in err and "EDGESWARM_LOCK_DIR" in err
