"""The gateway's metrics, exposed at ``GET /metrics`` through ``prometheus_client``.

Counters and histograms live in a registry of the gateway's own (two gateways in one
process, as in the tests, never share one), with the process's own ``process_*`` metrics.
Gauges are read from the scheduler when a scrape asks for them, so they are never stale:
:meth:`GatewayMetrics.render` takes them as ``{name: [(labels, value), ...]}``; a name ending
in ``_total`` is a counter read the same way (``budget_violations_total``), and each has its
help text in :data:`SCRAPED_HELP`.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import Counter as PromCounter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

PREFIX = "edgeswarm_gateway_"

# No `_created` line beside every counter and histogram (64 of them on a scrape).
disable_created_metrics()  # type: ignore[no-untyped-call]

Gauges = dict[str, list[tuple[dict[str, str], float]]]
"""Gauge name (without the prefix) to its samples: labels and value."""

SCRAPED_HELP = {
    "budget_bytes": "Device memory budget in bytes (what the models may hold together).",
    "resident_bytes": "Device bytes the ledger reserves now for loaded and sleeping models.",
    "host_budget_bytes": "Host RAM budget in bytes for the remains of sleeping models.",
    "host_bytes": "Host RAM bytes the ledger reserves now for sleeping models.",
    "queue_depth": "Requests waiting for their model, all models together.",
    "budget_violations_total": "Times the ledger found the budget exceeded after a change "
    "(a server that measured larger than declared); 0 in a healthy gateway.",
    "model_queue_depth": "Requests waiting for this model to be admitted.",
    "model_in_flight": "Requests of this model being answered by its server now.",
    "model_resident_bytes": "Device bytes the ledger reserves for this model now.",
    "sleeping_remains_bytes": "Device bytes still held by sleeping models (what sleep keeps).",
    "model_host_bytes": "Host RAM bytes the ledger reserves for this sleeping model now.",
    "model_state": "1 for the model's current life-cycle state, 0 for every other state "
    "(stopped, starting, ready, sleeping, stopping, failed).",
}
"""Help text of each series :meth:`runtime.gateway.swap.SwapScheduler.gauges` reports."""

_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
_SWAP_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)
_FIRST_TOKEN_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
REFUSAL_REASONS = (
    "body_too_large",
    "foreign_host",
    "foreign_origin",
    "head_timeout",
    "body_timeout",
    "too_many_connections",
)
"""Why a request or connection is refused at the door: its series show from the start, at 0."""
RECENT = 20
"""Swap steps kept for the status page, newest last (its requests are the request log's)."""
SWAP_LOG = 10_000
"""Swap steps kept for requests' swap waits: hours of swapping, a few hundred KB."""
QUEUE_HOLDING_STEPS = frozenset({"load", "wake", "sleep", "stop", "load_failed"})
"""Swap steps during which a model's queue waits."""


class _GaugeCollector(Collector):
    """Yields the gauges (and ``_total`` counters) of the scrape in progress (set before it)."""

    def __init__(self) -> None:
        self.gauges: Gauges = {}

    def collect(self) -> Iterator[Metric]:
        for name, samples in sorted(self.gauges.items()):
            keys = sorted({key for labels, _ in samples for key in labels})
            help_text = SCRAPED_HELP.get(name, f"The gateway's {name.replace('_', ' ')}.")
            family: GaugeMetricFamily | CounterMetricFamily
            if name.endswith("_total"):  # a count read from the scheduler: monotonic
                family = CounterMetricFamily(f"{PREFIX}{name}", help_text, labels=keys)
            else:
                family = GaugeMetricFamily(f"{PREFIX}{name}", help_text, labels=keys)
            for labels, value in samples:
                family.add_metric([labels.get(key, "") for key in keys], value)
            yield family


class GatewayMetrics:
    """What the scheduler and the proxy count and time; gauges are read at render time."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.swaps: Counter[tuple[str, str]] = Counter()
        """Swap steps by (model, kind), as the scheduler's own count (see :meth:`swap_count`)."""
        self.requests: Counter[tuple[str, str]] = Counter()
        """Finished requests by (model, outcome), for the process itself (tests, the page)."""
        self.recent_swaps: deque[dict[str, Any]] = deque(maxlen=RECENT)
        """The last swap steps for the status page: when (epoch seconds), model, kind, seconds,
        why. (The last requests are :class:`runtime.gateway.requestlog.RequestLog`'s.)"""
        self.swap_log: deque[tuple[float, float]] = deque(maxlen=SWAP_LOG)
        """(start, end) epoch seconds of the last swap steps that hold a queue (load, wake,
        sleep, stop, load_failed): a request's swap wait is its queue wait's overlap with them."""
        registry = self.registry
        self._swaps = PromCounter(
            f"{PREFIX}swaps", "Swap steps by model and kind.", ["model", "kind"], registry=registry
        )
        self._swap_duration = Histogram(
            f"{PREFIX}swap_duration_seconds",
            "Duration of one swap step (load, wake, sleep, stop, load_failed).",
            ["model", "kind"],
            buckets=_SWAP_BUCKETS,
            registry=registry,
        )
        self._requests = PromCounter(
            f"{PREFIX}requests",
            "Requests by model and outcome.",
            ["model", "outcome"],
            registry=registry,
        )
        self._latency = Histogram(
            f"{PREFIX}request_duration_seconds",
            "Seconds from a request's arrival to its end (queue wait and swap included), by "
            "model and outcome (as requests_total).",
            ["model", "outcome"],
            buckets=_LATENCY_BUCKETS,
            registry=registry,
        )
        self._admissions = PromCounter(
            f"{PREFIX}admissions",
            "Admissions by model and path: direct, queued, rejected (429: the queue was full).",
            ["model", "path"],
            registry=registry,
        )
        self._queue_wait = Histogram(
            f"{PREFIX}queue_wait_seconds",
            "Seconds a request waited for its model before it was admitted (0: direct).",
            ["model"],
            buckets=_LATENCY_BUCKETS,
            registry=registry,
        )
        self._first_token = Histogram(
            f"{PREFIX}time_to_first_token_seconds",
            "Seconds from a streamed request's arrival to its first chunk.",
            ["model"],
            buckets=_FIRST_TOKEN_BUCKETS,
            registry=registry,
        )
        self._drain_cut = PromCounter(
            f"{PREFIX}drain_cut",
            "In-flight requests cut while their model drained for a swap (they had made no "
            "progress for the idle limit, or a configured drain cap passed).",
            ["model"],
            registry=registry,
        )
        self.drain_cuts: Counter[str] = Counter()
        """Requests cut while draining, by model (what the swaps cost in work)."""
        self._refused = PromCounter(
            f"{PREFIX}refused",
            "Requests and connections refused before any model saw them, by reason: "
            "body_too_large, foreign_host, foreign_origin, head_timeout, body_timeout, "
            "too_many_connections.",
            ["reason"],
            registry=registry,
        )
        self.refusals: Counter[str] = Counter()
        """Requests and connections refused at the door, by reason."""
        for reason in REFUSAL_REASONS:
            self._refused.labels(reason)
        self._prompt_tokens = PromCounter(
            f"{PREFIX}prompt_tokens",
            "Prompt tokens of the answers that reported usage, by model.",
            ["model"],
            registry=registry,
        )
        self._completion_tokens = PromCounter(
            f"{PREFIX}completion_tokens",
            "Completion tokens of the answers that reported usage, by model.",
            ["model"],
            registry=registry,
        )
        self.tokens: Counter[tuple[str, str]] = Counter()
        """Tokens by (model, ``prompt`` or ``completion``), for the process itself."""
        self._gauges = _GaugeCollector()
        registry.register(self._gauges)
        ProcessCollector(registry=registry)  # process_cpu_seconds_total, memory, open fds...

    def know(self, models: Iterable[str]) -> None:
        """Show every model's per-model series from the start, at zero, not at its first use."""
        for model in models:
            self._requests.labels(model, "ok")
            self._latency.labels(model, "ok")
            for metric in (
                self._queue_wait,
                self._first_token,
                self._drain_cut,
                self._prompt_tokens,
                self._completion_tokens,
            ):
                metric.labels(model)

    def swap(self, model: str, kind: str, seconds: float, reason: str = "") -> None:
        """Count one swap step (``load``, ``wake``, ``sleep``, ``stop``), its duration and why."""
        now = time.time()
        if kind in QUEUE_HOLDING_STEPS:
            self.swap_log.append((now - max(0.0, seconds), now))
        self.recent_swaps.append(
            {
                "at": now,
                "model": model,
                "kind": kind,
                "seconds": round(seconds, 3),
                "reason": reason[:200],
            }
        )
        self.swaps[(model, kind)] += 1
        self._swaps.labels(model, kind).inc()
        self._swap_duration.labels(model, kind).observe(max(0.0, seconds))

    def request(self, model: str, outcome: str, seconds: float | None = None) -> None:
        """Count one finished request by outcome (``ok``, ``queue_full``...), and time it.

        Called once per request, by :meth:`runtime.gateway.requestlog.RequestLog.add` as its
        record is made; its tokens are counted there too (:meth:`count_tokens`).
        """
        self._requests.labels(model, outcome).inc()
        self.requests[(model, outcome)] += 1
        if seconds is not None:
            self._latency.labels(model, outcome).observe(max(0.0, seconds))

    def count_tokens(self, model: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one answer's ``usage``: its prompt and completion tokens (negatives count 0)."""
        prompt, completion = max(0, int(prompt_tokens)), max(0, int(completion_tokens))
        self.tokens[(model, "prompt")] += prompt
        self.tokens[(model, "completion")] += completion
        self._prompt_tokens.labels(model).inc(prompt)
        self._completion_tokens.labels(model).inc(completion)

    def admitted(self, model: str, how: str, waited_s: float = 0.0) -> None:
        """Count one admission: ``direct`` (no queue), ``queued``, or ``rejected`` (429)."""
        self._admissions.labels(model, how).inc()
        if how != "rejected":
            self._queue_wait.labels(model).observe(max(0.0, waited_s))

    def drain_cut(self, model: str, count: int) -> None:
        """``count`` in-flight requests of ``model`` were cut while it drained."""
        if count:
            self.drain_cuts[model] += count
            self._drain_cut.labels(model).inc(count)

    def refused(self, reason: str) -> None:
        """A request or connection was refused before routing (limits, Host or Origin)."""
        self.refusals[reason] += 1
        self._refused.labels(reason).inc()

    def first_token(self, model: str, seconds: float) -> None:
        """A streamed request's first chunk came ``seconds`` after the request arrived."""
        self._first_token.labels(model).observe(max(0.0, seconds))

    def swap_count(self, kinds: Iterable[str] = ("load", "wake")) -> int:
        """Loads and wakes so far (one per swap into the device)."""
        wanted = set(kinds)
        return sum(count for (_, kind), count in self.swaps.items() if kind in wanted)

    def render(self, gauges: Gauges) -> str:
        """Prometheus text exposition of every metric, with ``gauges`` as of now."""
        self._gauges.gauges = gauges
        try:
            return generate_latest(self.registry).decode()
        finally:
            self._gauges.gauges = {}
