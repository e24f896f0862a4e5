"""PNG plots of the benchmark's parts (matplotlib, headless): one figure per measurement."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: before pyplot is imported
import matplotlib.pyplot as plt
from matplotlib.axes import Axes

Plot = Callable[[dict[str, Any]], tuple[Any, str] | None]


def _ok(part: dict[str, Any] | None, key: str) -> bool:
    return bool(part) and key in (part or {})


def batching(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Tokens/s vs N (raw requests) and runs/min vs N (swarm runs), direct vs gateway."""
    raw, swarm = parts.get("throughput"), parts.get("swarm-batching")
    if not (_ok(raw, "levels") or _ok(swarm, "levels")):
        return None
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    if raw and "levels" in raw:
        ns = [int(n) for n in raw["levels"]]
        for arm in ("direct", "gateway"):
            values = [raw["levels"][str(n)][f"{arm}_tokens_per_s_median"] for n in ns]
            left.plot(ns, values, marker="o", label=arm)
        _axes(left, "raw requests", "concurrent requests N", "completion tokens/s", ns)
    if swarm and "levels" in swarm:
        ns = [int(n) for n in swarm["levels"]]
        for arm in ("direct", "gateway"):
            values = [swarm["levels"][str(n)][f"{arm}_tokens_per_s"] for n in ns]
            right.plot(ns, values, marker="o", label=arm)
        _axes(right, "swarm runs", "concurrent swarm runs N", "generated tokens/s (vLLM)", ns)
    figure.suptitle("continuous batching through the gateway vs direct to vLLM (CPU)")
    return figure, "batching"


def _axes(axis: Axes, title: str, xlabel: str, ylabel: str, ticks: list[int]) -> None:
    axis.set_title(title)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.set_xticks(ticks)
    axis.set_ylim(bottom=0)
    axis.legend()


def mixed(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Latency of each request by arrival: grouped scheduler, arrival order, naive mutex."""
    part = parts.get("mixed")
    if not part or "runs" not in part:
        return None
    figure, axis = plt.subplots(figsize=(7, 4))
    for policy, run in part["runs"].items():
        done = [o for o in run["outcomes"] if o["status"] == 200]
        label = f"{policy}: {run['swaps']} swaps, {run['total_s']:.0f} s"
        axis.scatter([o["due_s"] for o in done], [o["latency_s"] for o in done], s=10, label=label)
    axis.set_xlabel("arrival (s)")
    axis.set_ylabel("latency (s)")
    axis.set_title("mixed 3-model workload, budget for one model (fake backend)")
    axis.legend()
    return figure, "mixed-latency"


def _bars(
    axis: Axes, groups: list[str], series: dict[str, list[Any]], ylabel: str, title: str
) -> None:
    width = 0.8 / max(1, len(series))
    for index, (label, values) in enumerate(series.items()):
        xs = [g + index * width for g in range(len(groups))]
        axis.bar(xs, values, width=width, label=label)
    axis.set_xticks([g + width * (len(series) - 1) / 2 for g in range(len(groups))], groups)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.legend()


def prefix(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Prefix-cache hit rate per layout, one run and concurrent runs."""
    part = parts.get("prefix")
    if not part or "layouts" not in part:
        return None
    layouts = list(part["layouts"])
    series = {
        "one run": [100 * (part["layouts"][x]["single_run"]["hit_rate"] or 0) for x in layouts],
        f"{part['sizes']['concurrent']} concurrent runs": [
            100 * (part["layouts"][x]["concurrent_runs"]["hit_rate"] or 0) for x in layouts
        ],
    }
    figure, axis = plt.subplots(figsize=(6, 4))
    _bars(axis, layouts, series, "prefix-cache hit rate (%)", "vLLM prefix cache by prompt layout")
    return figure, "prefix-cache"


def guided(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Tokens/s per schema, guided vs unconstrained."""
    part = parts.get("guided")
    if not part or "schemas" not in part:
        return None
    names = list(part["schemas"])
    series = {
        "guided (schema)": [part["schemas"][n]["guided_tokens_per_s"] for n in names],
        "unconstrained": [part["schemas"][n]["free_tokens_per_s"] for n in names],
    }
    figure, axis = plt.subplots(figsize=(8, 4))
    _bars(axis, names, series, "completion tokens/s", "guided decoding cost (same lengths)")
    return figure, "guided"


def pruning(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Prompt tokens of each call in order, with and without the summarizers."""
    part = parts.get("pruning")
    if not part or "modes" not in part:
        return None
    figure, axis = plt.subplots(figsize=(9, 4))
    for mode, rows in part["modes"].items():
        for node in ("coder", "security_auditor"):
            picked = [r for r in rows if r["node"] == node]
            label = f"{node}, {mode}"
            axis.plot(
                [r["revision"] for r in picked],
                [r["prompt_tokens"] for r in picked],
                marker="o",
                label=label,
            )
    axis.set_xlabel("revision")
    axis.set_ylabel("prompt tokens")
    axis.set_xticks(range(part["sizes"]["revisions"] + 1))
    axis.set_title("prompt size over revisions, with and without the summarization nodes")
    axis.legend()
    return figure, "pruning"


def effectiveness(parts: dict[str, Any]) -> tuple[Any, str] | None:
    """Solved share per arm: the swarm, one plain call (and one guided call when it ran)."""
    part = parts.get("eval")
    if not part or "summary" not in part:
        return None
    summary = part["summary"]
    arms = [a for a in ("swarm", "plain", "direct") if a in summary]
    figure, axis = plt.subplots(figsize=(5, 4))
    shares = [100 * (summary[a]["solved_share"] or 0) for a in arms]
    axis.bar(arms, shares, color=["tab:blue", "tab:orange", "tab:gray"][: len(arms)])
    for index, arm in enumerate(arms):
        axis.text(index, shares[index], f"{summary[arm]['solved']}/{summary['tasks']}", ha="center")
    axis.set_ylabel("tasks solved (%)")
    axis.set_ylim(0, 100)
    axis.set_title(f"hidden tests passed, {summary['tasks']} tasks")
    return figure, "effectiveness"


PLOTS: tuple[Plot, ...] = (batching, mixed, prefix, guided, pruning, effectiveness)


def write_all(parts: dict[str, Any], out_dir: Path, stem: str) -> list[Path]:
    """Every plot whose part ran; the files written."""
    written = []
    for plot in PLOTS:
        made = plot(parts)
        if made is None:
            continue
        figure, name = made
        path = out_dir / f"{stem}-{name}.png"
        figure.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written
