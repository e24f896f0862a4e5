"""vLLM's prefix-cache counters, read from its Prometheus ``/metrics``.

A vLLM server counts the prompt tokens it looked up in its prefix cache and the tokens it
found there (``vllm:prefix_cache_queries_total`` and ``vllm:prefix_cache_hits_total``); the
hit rate over a stretch of work is the change in hits over the change in queries. Behind an
edgeswarm gateway the servers are found through its ``GET /running``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import httpx

_METRIC = re.compile(r"^(vllm:prefix_cache_(?:queries|hits)_total)(?:\{[^}]*\})?\s+(\S+)$")

Counters = dict[str, float]
"""``{"queries": tokens looked up, "hits": tokens found}``."""


def prefix_counters(metrics_text: str) -> Counters:
    """Prefix-cache counters of vLLM (queries and hits, in tokens) summed over their labels."""
    found = {"queries": 0.0, "hits": 0.0}
    for line in metrics_text.splitlines():
        match = _METRIC.match(line.strip())
        if match:
            key = "queries" if "queries" in match[1] else "hits"
            found[key] += float(match[2])
    return found


def server_counters(root_url: str, timeout_s: float = 10.0) -> Counters:
    """The counters of the vLLM server at ``root_url`` (no ``/v1``).

    Raises:
        httpx.HTTPError: no answer, or not a 2xx one.
        ValueError: its ``/metrics`` page has no prefix-cache counters (not a vLLM server,
            or one without prefix caching): no hit rate can be read there.
    """
    reply = httpx.get(f"{root_url.rstrip('/')}/metrics", timeout=timeout_s, trust_env=False)
    reply.raise_for_status()
    if not any(_METRIC.match(line.strip()) for line in reply.text.splitlines()):
        raise ValueError(f"{root_url}/metrics shows no vLLM prefix-cache counters")
    return prefix_counters(reply.text)


def endpoint_counters(base_url: str, api_key: str = "EMPTY") -> dict[str, Counters] | None:
    """Counters per model server behind ``base_url`` (an OpenAI ``/v1`` URL); None if unknown.

    An edgeswarm gateway lists its servers at ``GET /running``; a model not started yet has
    no counters. Any other endpoint is read as one vLLM server (its name: ``"server"``).
    """
    root = base_url.rstrip("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {api_key}"}
    try:
        reply = httpx.get(f"{root}/running", headers=headers, timeout=10, trust_env=False)
        if reply.status_code == httpx.codes.OK and "models" in reply.json():
            found: dict[str, Counters] = {}
            for model in reply.json()["models"]:
                url = model.get("url")
                if url:
                    found[str(model["name"])] = server_counters(str(url).removesuffix("/v1"))
            return found
        return {"server": server_counters(root)}
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


def hit_rate(before: Counters, after: Counters) -> dict[str, Any]:
    """Queried and hit tokens between two readings, and their ratio (None without queries)."""
    queries = after["queries"] - before["queries"]
    hits = after["hits"] - before["hits"]
    return {
        "queried_tokens": int(queries),
        "hit_tokens": int(hits),
        "hit_rate": round(hits / queries, 4) if queries else None,
    }


def total_hit_rate(
    before: dict[str, Counters] | None, after: dict[str, Counters] | None
) -> dict[str, Any] | None:
    """:func:`hit_rate` summed over the servers read at the end; None if a reading failed.

    A server first read at the end (started in between) counts from zero.
    """
    if before is None or after is None:
        return None
    zero = {"queries": 0.0, "hits": 0.0}
    start = {key: sum(before.get(name, zero)[key] for name in after) for key in zero}
    end = {key: sum(counters[key] for counters in after.values()) for key in zero}
    return hit_rate(start, end)


def combined(rates: Iterable[dict[str, Any] | None]) -> dict[str, Any] | None:
    """One hit rate over stretches measured apart (each a :func:`hit_rate`); None if one is."""
    queried = hit = 0
    for rate in rates:
        if rate is None:
            return None
        queried += rate["queried_tokens"]
        hit += rate["hit_tokens"]
    return {
        "queried_tokens": queried,
        "hit_tokens": hit,
        "hit_rate": round(hit / queried, 4) if queried else None,
    }
