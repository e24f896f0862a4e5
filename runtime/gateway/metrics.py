"""The gateway's counters, rendered as Prometheus text at ``GET /metrics``."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

_PREFIX = "edgeswarm_gateway_"


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    body = ",".join(f'{key}="{_escape(value)}"' for key, value in pairs)
    return "{" + body + "}" if body else ""


def _number(value: float) -> str:
    """A sample value without float rounding for whole numbers (byte counts)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class GatewayMetrics:
    """Counters the scheduler and the proxy update; gauges are read at render time."""

    def __init__(self) -> None:
        self.swaps: Counter[tuple[str, str]] = Counter()
        self.swap_seconds: defaultdict[tuple[str, str], float] = defaultdict(float)
        self.requests: Counter[tuple[str, str]] = Counter()
        self.admissions: Counter[tuple[str, str]] = Counter()

    def swap(self, model: str, kind: str, seconds: float) -> None:
        """Count one swap step (``load``, ``wake``, ``sleep``, ``stop``) and its duration."""
        self.swaps[(model, kind)] += 1
        self.swap_seconds[(model, kind)] += seconds

    def request(self, model: str, outcome: str) -> None:
        """Count one finished request by outcome (``ok``, ``rejected``, ``timeout``...)."""
        self.requests[(model, outcome)] += 1

    def admitted(self, model: str, how: str) -> None:
        """Count one admission: ``direct`` (no queue), ``queued``, or ``rejected`` (429)."""
        self.admissions[(model, how)] += 1

    def swap_count(self, kinds: Iterable[str] = ("load", "wake")) -> int:
        """Loads and wakes so far (one per swap into the device)."""
        wanted = set(kinds)
        return sum(count for (_, kind), count in self.swaps.items() if kind in wanted)

    def render(self, gauges: dict[str, list[tuple[dict[str, str], float]]]) -> str:
        """Prometheus text exposition of the counters and the given gauges."""
        lines: list[str] = []
        self._counter(lines, "swaps_total", "Swap steps by model and kind.", self.swaps)
        self._counter(
            lines, "swap_seconds_total", "Seconds spent in swap steps.", self.swap_seconds
        )
        self._counter(
            lines,
            "requests_total",
            "Requests by model and outcome.",
            self.requests,
            ("model", "outcome"),
        )
        self._counter(
            lines,
            "admissions_total",
            "Admissions by model and path.",
            self.admissions,
            ("model", "path"),
        )
        for name, samples in sorted(gauges.items()):
            lines.append(f"# TYPE {_PREFIX}{name} gauge")
            for labels, value in samples:
                lines.append(f"{_PREFIX}{name}{_labels(sorted(labels.items()))} {_number(value)}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _counter(
        lines: list[str],
        name: str,
        help_text: str,
        values: Mapping[tuple[str, str], float],
        keys: tuple[str, str] = ("model", "kind"),
    ) -> None:
        lines.append(f"# HELP {_PREFIX}{name} {help_text}")
        lines.append(f"# TYPE {_PREFIX}{name} counter")
        for (first, second), value in sorted(values.items()):
            labels = _labels(zip(keys, (first, second), strict=True))
            lines.append(f"{_PREFIX}{name}{labels} {_number(value)}")
