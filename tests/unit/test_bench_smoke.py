"""The benchmark's fake-backend parts, tiny, end to end: the bench code cannot rot.

Runs the mixed workload (two real gateway processes, fake vLLM servers started by them), the
orchestration overhead and the context-pruning parts (the scripted fake model, the real graph)
with a handful of requests, then writes the results files and plots. The vLLM parts have
their own smoke test in tests/integration/test_bench_vllm.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app import evaluate
from bench import swarm_parts as sp
from bench.harness import FakeSpec, Workspace, bench_dtype, cpu_matmul_flags
from bench.parts import SMALL, MixedSizes, mixed_workload, swap_steps
from bench.report import summary_rows, text_table, write_outputs
from bench.suite import PARTS, Sizes, output_stem, parse_args, scaled_sizes
from graphs.state import NodeMetrics
from runtime.settings import load_settings
from tests.support.network import allowed_port

TINY = MixedSizes(
    requests=6,
    window_s=0.5,
    seed=1,
    fake=FakeSpec(load_time_s=0.1, tokens=4, token_rate=200.0),
    scheduling={"max_wait_s": 1.0, "linger_s": 0.2, "request_timeout_s": 60},
)


def suite_results(names: str, parts: dict[str, Any], *, quick: bool = False) -> dict[str, Any]:
    """A results file of ``python -m bench.suite --parts NAMES`` on a made-up machine."""
    return {
        "date": "2000-01-01",
        "command": f"python -m bench.suite --parts {names}",
        "quick": quick,
        "machine": {
            "hostname": "smoke",
            "cpu_model": "cpu",
            "cores_usable": 1,
            "ram_bytes": 2**30,
            "loadavg_start": [0.0],
        },
        "versions": {"python": "3.11"},
        "wall_s": 1.0,
        "parts": parts,
    }


def test_the_mixed_workload_runs_under_every_policy_and_reports(tmp_path: Path) -> None:
    work = Workspace(tmp_path / "work", tmp_path / "models")
    part = mixed_workload(TINY, work, allowed_port)
    grouped, naive = part["runs"]["grouped"], part["runs"]["fifo-mutex"]
    for run in part["runs"].values():
        assert run["ok"] == run["requests"] == 6, run["errors"]
        assert run["budget_violations"] == 0
        assert run["swaps"] >= 1 and run["total_s"] > 0
        assert run["latency"]["p95_s"] >= run["latency"]["p50_s"] > 0
    assert grouped["swaps"] <= naive["swaps"]
    assert part["ratios_naive_over_grouped"]["swaps"] >= 1
    assert set(part["runs"]) == {"grouped", "fifo", "fifo-mutex"}
    assert part["ratios_fifo_over_grouped"]["total_s"] is not None

    results = suite_results(
        "mixed", {"mixed": part, "swap-vllm": {"skipped": "no vLLM"}}, quick=True
    )
    written = write_outputs(results, tmp_path / "out", output_stem(results))
    assert [p.name for p in written[:2]] == [
        "2000-01-01-smoke-quick.json",
        "2000-01-01-smoke-quick.md",
    ]
    # A subset of the parts never overwrites a whole run's files.
    assert output_stem({**results, "parts_requested": ["mixed"]}) == (
        "2000-01-01-smoke-parts-mixed-quick"
    )
    assert output_stem({**results, "parts_requested": list(PARTS)}) == "2000-01-01-smoke-quick"
    assert json.loads(written[0].read_text())["parts"]["mixed"]["runs"]["grouped"]["ok"] == 6
    assert "| 2. mixed 3 models | fifo-mutex |" in written[1].read_text()
    table = text_table(summary_rows(results))
    assert "naive/grouped" in table and "fifo/grouped" in table


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


def test_orchestration_overhead_and_context_pruning_run_on_the_fake_model(tmp_path: Path) -> None:
    models_dir = load_settings().models_dir.expanduser()
    if not (models_dir / SMALL / "tokenizer.json").is_file():
        pytest.skip(f"{SMALL} is not pulled (make test pulls it): its tokenizer counts tokens")
    work = Workspace(tmp_path / "work", models_dir)
    overhead = sp.orchestration_overhead(sp.OverheadSizes(runs=2), work, allowed_port)
    for arm in ("direct", "gateway"):
        data = overhead["arms"][arm]
        assert data["nodes_per_run"] == 11 and data["calls_per_run"] == 5  # setup included
        assert 0 < data["ms_per_node_without_sandbox"] < data["ms_per_node"]
    pruning = sp.context_pruning(sp.PruningSizes(revisions=2), work, allowed_port)
    pruned, unpruned = pruning["modes"]["pruned"], pruning["modes"]["unpruned"]
    assert [r["revision"] for r in pruned if r["node"] == "coder"] == [0, 1, 2]
    assert not any(r["node"].startswith("summarize") for r in unpruned)
    growth = pruning["growth"]
    assert growth["unpruned"]["coder_last"] > growth["pruned"]["coder_last"]
    assert growth["unpruned"]["coder_last"] > growth["unpruned"]["coder_first"]

    parts = {"overhead": overhead, "pruning": pruning, "eval": {"error": "boom"}}
    results = suite_results("overhead,pruning", parts)
    written = write_outputs(results, tmp_path / "out", output_stem(results))
    names = [p.name for p in written]
    assert "2000-01-01-smoke-pruning.png" in names
    table = text_table(summary_rows(results))
    assert "ms/node" in table and "7. prompt tokens" in table
    assert "8. effectiveness  error" in table


def metric(node: str, seconds: float, revision: int = 0, started: float = 0.0) -> NodeMetrics:
    """One call of ``node`` that took ``seconds`` (one token each way)."""
    return NodeMetrics(
        node=node,
        model="m",
        prompt_tokens=1,
        completion_tokens=1,
        seconds=seconds,
        revision=revision,
        started=started,
    )


def test_the_critical_path_counts_parallel_auditors_once() -> None:
    metrics = [metric("researcher", 2.0), metric("coder", 3.0), metric("security_auditor", 1.0)]
    metrics += [metric("performance_auditor", 1.5), metric("coder", 1.0, 1)]
    metrics += [metric("security_auditor", 0.5, 1)]
    assert evaluate.model_seconds(metrics) == 2.0 + 3.0 + 1.5 + 1.0 + 0.5


def test_prefix_prompts_are_recorded_per_run_and_replayed_for_one_token(tmp_path: Path) -> None:
    work = Workspace(tmp_path / "bench", load_settings().models_dir)
    tasks = ["Write add(a, b) for floats.", "Write mul(a, b) for ints."]
    runs = sp.record_prompts(tasks, "stable_first", work, allowed_port)
    assert [len(run) for run in runs] == [5, 5]  # brief, code, checks, 2 audits
    assert "mul(a, b) for ints" in json.dumps(runs[1][2]["messages"])  # the task's own words
    assert "mul(a, b)" not in json.dumps(runs[0])
    flipped = sp.record_prompts(tasks[:1], "variable_first", work, allowed_port)
    assert flipped[0][0]["messages"] != runs[0][0]["messages"]
    with sp.fake_server(work, allowed_port) as fake:
        seconds = asyncio.run(sp.replay_runs(fake.base_url, runs))
        sent = fake.requests()
    assert seconds > 0 and len(sent) == 10
    assert all(b["max_completion_tokens"] == 1 and "response_format" not in b for b in sent)
    assert {b["model"] for b in sent} == {SMALL}


def test_sizes_shrink_on_a_slow_machine_only() -> None:
    sizes = Sizes()
    slow = {
        "levels": {
            "1": {"direct_tokens_per_s_median": 12.0},
            "8": {"direct_tokens_per_s_median": 15.0},
        }
    }
    fitted, scaling = scaled_sizes(sizes, slow)
    assert scaling["scale"] == 0.25 and scaling["at_n"] == 8
    assert fitted.prefix.concurrent == 3 and fitted.guided.concurrency == 2  # floors
    assert fitted.swap.vllm_requests == 2  # one swap
    assert scaling["changed"] == {
        "prefix.concurrent": [10, 3],
        "guided.concurrency": [4, 2],
        "swap.vllm_requests": [3, 2],
    }
    assert fitted.swarm == sizes.swarm and fitted.eval == sizes.eval
    fast = {"levels": {"8": {"direct_tokens_per_s_median": 170.0}}}
    kept, unchanged = scaled_sizes(sizes, fast)
    assert kept == sizes and unchanged["scale"] == 1.0 and unchanged["changed"] == {}
    assert scaled_sizes(sizes, {"error": "x"})[0] == sizes


def test_bench_servers_run_float32_where_bfloat16_is_emulated() -> None:
    assert bench_dtype(["avx2"])[0] == "float32"  # AVX2 only: bfloat16 emulated
    assert bench_dtype(["avx2", "avx512f"])[0] == "float32"
    assert bench_dtype(["avx2", "avx512f", "avx512_bf16"])[0] == "bfloat16"
    assert bench_dtype(["avx2", "amx_bf16"])[0] == "bfloat16"
    assert bench_dtype([]) == ("bfloat16", "the stored weights' dtype")  # not x86 or unknown
    assert set(cpu_matmul_flags()) <= {"avx2", "avx512f", "avx512_bf16", "amx_bf16"}


def test_calls_that_ran_at_the_same_time_count_once() -> None:
    def m(node: str, started: float, seconds: float) -> NodeMetrics:
        return metric(node, seconds, started=started)

    # the researcher beside two candidates and the test writer, then two auditors together
    metrics = [m("researcher", 100, 9), m("coder", 100, 10), m("coder", 100.5, 12)]
    metrics += [m("test_writer", 101, 5), m("security_auditor", 120, 2)]
    metrics += [m("performance_auditor", 120.5, 3)]
    assert evaluate.model_seconds(metrics) == 12.5 + 3.5  # [100, 112.5] and [120, 123.5]


def test_the_timeline_lists_the_calls_in_the_order_they_began() -> None:
    late = metric("security_auditor", 2.0, started=130.25)
    early = metric("coder", 10.0, started=101.5)
    old = metric("researcher", 1.0)  # no start recorded
    rows = evaluate.timeline([late, early, old], began=100.0)
    assert [row["node"] for row in rows] == ["researcher", "coder", "security_auditor"]
    assert [row["at"] for row in rows] == [None, 1.5, 30.25]
    assert rows[1]["seconds"] == 10.0 and rows[1]["revision"] == 0


def test_the_wait_ratio_compares_the_swarm_with_one_plain_call_task_by_task() -> None:
    def arm(seconds: float) -> dict[str, float]:
        return {"seconds": seconds}

    tasks = [
        {"task": "a", "swarm": arm(20.0), "plain": arm(10.0)},
        {"task": "b", "swarm": arm(30.0), "plain": arm(30.0)},
        {"task": "c", "swarm": arm(90.0), "plain": arm(15.0)},
        {"task": "d", "swarm": arm(40.0)},  # the plain arm did not run: left out
    ]
    wait = sp.wait_ratio(tasks)
    assert wait == {
        "tasks": 3,
        "swarm_median_s": 30.0,
        "plain_median_s": 15.0,
        "ratio": 2.0,
        "per_task_median": 2.0,
        "per_task_max": 6.0,
    }
    assert sp.wait_ratio([{"task": "d", "swarm": arm(40.0)}]) is None
    summary = {
        "tasks": 3,
        "swarm": {
            "solved": 2,
            "solved_share": 0.667,
            "median_s": 30.0,
            "first_try_valid_share": 1.0,
        },
        "plain": {
            "solved": 1,
            "solved_share": 0.333,
            "median_s": 15.0,
            "first_try_valid_share": None,
        },
    }
    results = {"parts": {"eval": {"summary": summary, "latency": wait}}}
    table = text_table(summary_rows(results))
    row = next(line for line in table.splitlines() if "swarm / plain" in line)
    assert "2.00x" in row and "over 3 tasks" in row and "max 6.00x" in row
    assert "schema-valid first try 100.0%" in table


def test_the_busy_part_has_its_rows_and_a_lone_part_no_orchestration_row() -> None:
    arm = {
        "solved": 2,
        "wall_s": 317.2,
        "median_s": 54.35,
        "cut_while_streaming": 0,
        "gateway_swaps": {"load": 0.0, "drain_cut": 0.0},
    }
    busy = {
        "sizes": {"hog_procs": 4},
        "tasks": ["a", "b", "c"],
        "arms": {"idle": arm, "hog": {**arm, "wall_s": 445.4}},
        "same_solved": True,
        "wall_ratio": 1.4,
        "median_ratio": 1.33,
    }
    rows = summary_rows({"parts": {"busy": busy}})
    assert [row[:3] for row in rows] == [
        ["9. busy machine: solved", "idle machine", "2/3"],
        ["9. busy machine: solved", "beside 4 busy processes", "2/3"],
        ["9. busy machine: wall time", "hog / idle", "1.40x"],
    ]
    assert rows[-1][3] == "median 1.33x; same solved count"
    assert summary_rows({"parts": {"busy": {"error": "boom"}}}) == [
        ["9. busy machine", "error", "-", "boom"]
    ]
