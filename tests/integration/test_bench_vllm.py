"""The benchmark's real-vLLM parts at tiny sizes: the bench code that talks to vLLM cannot rot.

The parts of each test share one vLLM CPU server (SmolLM2-135M), as in ``make bench``, and,
where they compare, a gateway in front of it; sizes are the smallest that still exercise every
code path. The numbers are not
checked against targets here (that is `make bench`'s job on a quiet machine), only that they
were measured and make sense.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import swarm_parts as sp
from bench.harness import ServerPool, Workspace
from bench.parts import ThroughputSizes, throughput
from bench.report import summary_rows, text_table
from runtime.process import free_port
from runtime.settings import Settings

# Small budgets keep each swarm run to seconds; a cut-off answer may end a run early (SmolLM2
# often needs more than 96 tokens for a brief), which is still a finished run for these parts:
# they measure the stack, not the answers.
TINY = {
    "researcher_tokens": 96,
    "coder_tokens": 96,
    "summarizer_tokens": 64,
    "auditor_tokens": 64,
}


@pytest.fixture
def work(tmp_path: Path, settings: Settings) -> Iterator[Workspace]:
    """A bench workspace whose parts share their vLLM server; stopped after the test."""
    pool = ServerPool()
    try:
        yield Workspace(tmp_path / "bench", settings.models_dir, servers=pool)
    finally:
        pool.close()


def test_raw_throughput_and_guided_cost_are_measured(work: Workspace) -> None:
    raw = throughput(ThroughputSizes(levels=(1, 2), max_tokens=8, reps=1), work, free_port)
    for n in ("1", "2"):
        level = raw["levels"][n]
        assert level["direct_tokens_per_s_median"] > 0 and level["ratio"] > 0
        assert level["every_request_full_length"]
    guided = sp.guided_cost(sp.GuidedSizes(concurrency=1, max_tokens_cap=16), work, free_port)
    assert set(guided["schemas"]) == {
        "ResearchBrief",
        "StageSummary",
        "TestSuite",
        "AuditReport",
    }
    assert all(s["guided_tokens_per_s"] > 0 for s in guided["schemas"].values())
    table = text_table(summary_rows({"parts": {"throughput": raw, "guided": guided}}))
    assert "1. raw requests, N=2" in table and "5. guided / free tok/s" in table


def test_swarm_runs_through_the_gateway_and_the_prefix_cache(work: Workspace) -> None:
    sizes = sp.SwarmBatchSizes(levels=(1,), window_s=30.0, budgets=TINY)
    batching = sp.swarm_batching(sizes, work, free_port)
    level = batching["levels"]["1"]  # vLLM wrote tokens for each arm's window
    assert level["direct_tokens_per_s"] > 0 and level["gateway_tokens_per_s"] > 0
    assert level["direct_requests_per_min"] is not None  # vLLM's finished requests, per arm
    runs = [run for record in batching["records"] for run in record["runs"]]
    assert all(run["status"] in ("done", "failed") for run in runs), runs
    assert all(run["wall_s"] > 0 and run["nodes"] >= 1 for run in runs), runs
    assert batching["runs_total"] == len(runs) and 0 <= batching["runs_done"] <= len(runs)
    share = batching["not_llm_share_single_run"]  # failed runs count: their calls are timed
    assert batching["not_llm_share_runs"] == len(runs)
    assert (share is None) == (not runs) and (share is None or 0 <= share < 1)
    prefix = sp.prefix_caching(
        sp.PrefixSizes(concurrent=1, layouts=("stable_first",)), work, free_port
    )
    single = prefix["layouts"]["stable_first"]["single_run"]
    assert single["queried_tokens"] > 0 and single["hit_rate"] is not None
