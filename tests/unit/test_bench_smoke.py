"""The gateway benchmark's mixed-workload part, tiny, against the fake backend: it cannot rot.

Runs ``bench.parts.mixed_workload`` end to end (two real gateway processes, fake vLLM servers
started by them) with a handful of requests, then writes the results files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.gateway_bench import output_stem, parse_args
from bench.harness import FakeSpec, Workspace
from bench.parts import MixedSizes, mixed_workload, swap_steps
from bench.report import summary_rows, text_table, write_outputs
from runtime.process import free_port
from tests.conftest import allow_loopback_port

TINY = MixedSizes(
    requests=6,
    window_s=0.5,
    seed=1,
    fake=FakeSpec(load_time_s=0.1, tokens=4, token_rate=200.0),
    scheduling={"max_wait_s": 1.0, "linger_s": 0.2, "request_timeout_s": 60},
)


def allowed_port() -> int:
    port = free_port()
    allow_loopback_port(port)
    return port


def test_the_mixed_workload_runs_under_both_policies_and_reports(tmp_path: Path) -> None:
    work = Workspace(tmp_path / "work", tmp_path / "models")
    part = mixed_workload(TINY, work, allowed_port)
    grouped, naive = part["runs"]["grouped"], part["runs"]["fifo-mutex"]
    for run in (grouped, naive):
        assert run["ok"] == run["requests"] == 6, run["errors"]
        assert run["budget_violations"] == 0
        assert run["swaps"] >= 1 and run["total_s"] > 0
        assert run["latency"]["p95_s"] >= run["latency"]["p50_s"] > 0
    assert grouped["swaps"] <= naive["swaps"]
    assert part["ratios_naive_over_grouped"]["swaps"] >= 1

    results = {
        "date": "2000-01-01",
        "command": "python -m bench.gateway_bench --parts mixed",
        "quick": True,
        "machine": {
            "hostname": "smoke",
            "cpu_model": "cpu",
            "cores_usable": 1,
            "ram_bytes": 2**30,
            "loadavg_start": [0.0],
        },
        "versions": {"python": "3.11"},
        "wall_s": 1.0,
        "parts": {"mixed": part, "swap-vllm": {"skipped": "no vLLM"}},
    }
    written = write_outputs(results, tmp_path / "out", output_stem(results))
    assert [p.name for p in written[:2]] == [
        "2000-01-01-smoke-gateway-quick.json",
        "2000-01-01-smoke-gateway-quick.md",
    ]
    assert json.loads(written[0].read_text())["parts"]["mixed"]["runs"]["grouped"]["ok"] == 6
    assert "| 2. mixed 3 models | fifo-mutex |" in written[1].read_text()
    assert "naive/grouped" in text_table(summary_rows(results))


def test_swap_steps_pair_each_load_with_the_evictions_before_it() -> None:
    events = [
        {"event": "load_end", "model": "a", "seconds": 2.0},
        {"event": "drain", "model": "a", "seconds": 0.5},
        {"event": "unload", "model": "a", "seconds": 0.25},
        {"event": "load_end", "model": "b", "seconds": 3.0},
        {"event": "sleep", "model": "b", "seconds": 0.1},
        {"event": "wake", "model": "a", "seconds": 0.2},
        {"event": "unload", "model": "a", "seconds": 1.0},  # shutdown: no swap follows
    ]
    steps = swap_steps(events)
    assert [(s["model"], s["out_kind"], s["in_kind"], s["total_s"]) for s in steps] == [
        ("a", None, "load", 2.0),
        ("b", "unload", "load", 3.75),
        ("a", "sleep", "wake", 0.3),
    ]


def test_the_command_line_rejects_unknown_parts() -> None:
    assert parse_args(["--quick", "--parts", "mixed"]).parts == ["mixed"]
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--parts", "nope"])
    assert exit_.value.code == 2
