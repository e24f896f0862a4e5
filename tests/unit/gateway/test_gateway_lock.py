"""One gateway per device: the flock'd lock file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runtime.gateway.lock import (
    DeviceBusyError,
    DeviceLock,
    LockHolder,
    device_key,
    is_locked,
    read_holder,
)
from runtime.settings import Device


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


def test_device_keys() -> None:
    assert device_key(Device.CPU) == "cpu"
    assert device_key(Device.CUDA, 1) == "cuda1"
