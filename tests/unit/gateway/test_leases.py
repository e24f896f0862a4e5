"""Leases on a shared embedded gateway (:mod:`runtime.gateway.leases`): one file per user.

A lease counts while its file exists and its process runs (the start time tells a reused pid
apart); the gateway's :class:`LeaseWatch` calls back once no lease counts any more. The
processes that share a gateway for real are in ``test_gateway_shared.py``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from runtime.gateway.embedded import dying_reason
from runtime.gateway.leases import LeaseWatch, live_leases, remove_leases, take_lease
from runtime.gateway.lock import LockHolder
from runtime.process import process_start
from tests.support.processes import dead_pid

WAIT_S = 30.0
"""The most a test waits for the watch's thread (it looks every few milliseconds here)."""


def test_a_lease_counts_while_its_file_and_process_live(tmp_path: Path) -> None:
    leases = tmp_path / "embedded-1-2.leases"
    with pytest.raises(FileNotFoundError):
        take_lease(leases)  # a stopped gateway's directory is gone: no lease on it
    leases.mkdir()
    mine, other = take_lease(leases), take_lease(leases)
    (leases / "junk").write_text("not a lease")
    assert live_leases(leases) == sorted([mine.path, other.path])
    assert live_leases(leases, besides=mine) == [other.path]
    holder = LockHolder(os.getpid(), "http://127.0.0.1:9", str(tmp_path / "embedded-1-2.yaml"))
    assert dying_reason(holder) is None
    mine.release()
    other.release()
    other.release()  # twice is fine
    assert live_leases(leases) == []
    assert dying_reason(holder) == "every run that used it has ended or exited, so it is stopping"


def test_a_lease_is_written_whole_naming_this_process(tmp_path: Path) -> None:
    lease = take_lease(tmp_path)
    assert lease.path.parent == tmp_path and lease.path.name.startswith(f"{os.getpid()}-")
    data = json.loads(lease.path.read_text("utf-8"))
    assert data == {"pid": os.getpid(), "start": process_start(os.getpid())}
    assert [p.name for p in tmp_path.iterdir()] == [lease.path.name]  # nothing left aside


def test_only_whole_leases_of_live_processes_count(tmp_path: Path) -> None:
    me = {"pid": os.getpid(), "start": process_start(os.getpid())}
    (tmp_path / f".{os.getpid()}-aside.tmp").write_text(json.dumps(me))  # being written
    (tmp_path / "no-start").write_text(json.dumps({"pid": os.getpid(), "start": None}))
    (tmp_path / "dead").write_text(json.dumps({"pid": dead_pid(), "start": None}))
    (tmp_path / "no-pid").write_text(json.dumps({"start": 1}))
    (tmp_path / "garbled").write_text("{")
    assert live_leases(tmp_path) == [tmp_path / "no-start"]  # a live pid, its start unknown
    assert live_leases(tmp_path / "gone") == []


def test_the_watch_calls_back_once_when_the_last_lease_ends(tmp_path: Path) -> None:
    first, second = take_lease(tmp_path), take_lease(tmp_path)
    ended = threading.Event()
    calls: list[int] = []

    def on_empty() -> None:
        calls.append(len(live_leases(tmp_path)))
        ended.set()

    watch = LeaseWatch(tmp_path, on_empty, interval_s=0.01)
    watch.start()
    try:
        first.release()
        assert watch._thread.is_alive()  # one lease still counts: it watches on
        second.release()
        assert ended.wait(WAIT_S), "the watch never saw the leases end"
        watch._thread.join(WAIT_S)
        assert not watch._thread.is_alive()  # it called back, and stopped watching
    finally:
        watch.stop()
    assert calls == [0]


def test_a_stopped_watch_never_calls_back(tmp_path: Path) -> None:
    lease = take_lease(tmp_path)
    calls: list[str] = []
    watch = LeaseWatch(tmp_path, lambda: calls.append("empty"), interval_s=0.01)
    watch.start()
    watch.stop()
    assert not watch._thread.is_alive()
    lease.release()  # no lease counts any more, but nobody watches
    assert calls == []


def test_a_stopped_gateway_s_lease_directory_goes_with_what_is_left(tmp_path: Path) -> None:
    leases = tmp_path / "embedded-1-2.leases"
    leases.mkdir()
    stale = take_lease(leases)
    remove_leases(leases)
    assert not leases.exists()
    stale.release()  # its user ends after the directory went: fine
    remove_leases(leases)  # twice is fine
    with pytest.raises(FileNotFoundError):
        take_lease(leases)
