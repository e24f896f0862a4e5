"""Load: 50 concurrent swarm runs through one gateway, 3 models and a budget for one.

The gateway is a real process (``python -m runtime.gateway.cli``), so its resident memory is
its own. Every run completes (no deadlock, no failure), the budget holds in the live server
processes and in the gateway's ledger, the queue never passes ``max_queue`` (a full queue
answers 429 with Retry-After, and the runs' calls come back as it says), nothing stays in
flight, and the gateway's memory after 50 runs is what it was after one, give or take.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphs.context import Context
from tests.support.gateway import MB, gateway_process, live_fakes, write_config
from tests.support.swarm import swarm_models, swarm_run

RUNS = 50
MAX_QUEUE = 16
BUDGET = 1000 * MB  # the fake models declare 600 MB each: one at a time


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text()
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(kib) * 1024


@dataclass
class Watch:
    """The most the live servers held and the longest queue, sampled while runs go on."""

    url: str
    tag: str
    worst_real: int = 0
    longest_queue: int = 0

    async def sample(self, http: httpx.AsyncClient) -> None:
        while True:
            self.worst_real = max(self.worst_real, sum(live_fakes(self.tag).values()))
            queued = (await http.get(f"{self.url}/running")).json()["queued"]
            self.longest_queue = max(self.longest_queue, queued)
            await asyncio.sleep(0.05)


def rejected(metrics: str) -> int:
    """Admissions the gateway turned away with 429, from its Prometheus text."""
    pattern = r'admissions_total\{model="\w+",path="rejected"\} (\d+)'
    return sum(int(count) for count in re.findall(pattern, metrics))


@pytest.mark.timeout(240)
async def test_50_concurrent_swarm_runs_with_3_models_and_a_budget_for_one(
    tmp_path: Path, tag: str
) -> None:
    names: dict[str, dict[str, Any]] = {"a": {}, "b": {}, "c": {}}
    models = swarm_models(tmp_path, tag, names, load_time=0.1, tokens=4, token_rate=400)
    config = write_config(tmp_path, models, BUDGET, max_wait_s=1.0, max_queue=MAX_QUEUE)
    with gateway_process(config, tmp_path / "gateway.log") as gateway:
        assert gateway.pid is not None
        url = gateway.health_url.removesuffix("/health")
        context = Context(
            base_url=f"{url}/v1",
            researcher_model="a",
            summarizer_model="b",
            coder_model="c",
            auditor_model="a",
            fallback_model="b",
            max_revisions=0,
            call_idle_s=120.0,
            resend_backoff_s=0.2,
        )
        await swarm_run(context)  # warm up: every code path once
        warm = rss_bytes(gateway.pid)
        watch = Watch(url, tag)
        async with httpx.AsyncClient(trust_env=False) as http:
            sampler = asyncio.create_task(watch.sample(http))
            started = time.monotonic()
            try:
                async with asyncio.timeout(200):  # no deadlock
                    states = await asyncio.gather(*(swarm_run(context) for _ in range(RUNS)))
            finally:
                sampler.cancel()
            seconds = time.monotonic() - started
            grown = rss_bytes(gateway.pid) - warm
            running = (await http.get(f"{url}/running")).json()
            turned_away = rejected((await http.get(f"{url}/metrics")).text)
    sys.stderr.write(
        f"{RUNS} runs: {seconds:.1f} s, {running['swaps']} swaps, {turned_away} answered 429, "
        f"longest queue {watch.longest_queue}, gateway RSS {warm / MB:.0f} MB "
        f"{grown / MB:+.1f} MB\n"
    )
    failed = [state.error for state in states if state.status != "done"]
    assert not failed, failed
    assert all(s.report is not None and s.report.outcome == "approved" for s in states)
    assert running["budget_violations"] == 0 and running["budget_bytes"] == BUDGET
    assert 0 < watch.worst_real <= BUDGET
    assert turned_away > 0, "the queue never filled: the 429 path was not exercised"
    assert watch.longest_queue <= MAX_QUEUE
    assert running["queued"] == 0 and all(m["in_flight"] == 0 for m in running["models"])
    assert grown < 16 * MB, f"the gateway grew by {grown / MB:.1f} MB over {RUNS} runs"
