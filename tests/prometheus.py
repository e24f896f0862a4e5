"""Read a ``/metrics`` page with ``prometheus_client``'s own parser, as a scraper would."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of the page: (name, labels) to value. Raises on text that does not parse."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of ``name`` with exactly ``labels`` (None when the page has no such sample)."""
    return samples(text).get((name, frozenset(labels.items())))
