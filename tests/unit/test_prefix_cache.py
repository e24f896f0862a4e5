"""vLLM's prefix-cache counters, read directly or through a gateway's ``/running``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from runtime.prefix_cache import combined, endpoint_counters, prefix_counters, total_hit_rate
from tests.support.network import allow_loopback_port

METRICS = """\
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in tokens.
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1200.0
vllm:prefix_cache_queries_total{engine="1",model_name="m"} 300.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 640.0
vllm:prefix_cache_hits_created 17.0
"""


def test_prefix_counters_sum_vllm_metrics_over_labels() -> None:
    assert prefix_counters(METRICS) == {"queries": 1500.0, "hits": 640.0}


def test_total_hit_rate_counts_a_server_started_in_between_from_zero() -> None:
    before = {"coder": {"queries": 100.0, "hits": 50.0}}
    after = {"coder": {"queries": 300.0, "hits": 200.0}, "auditor": {"queries": 100.0, "hits": 0}}
    assert total_hit_rate(before, after) == {
        "queried_tokens": 300,
        "hit_tokens": 150,
        "hit_rate": 0.5,
    }
    assert total_hit_rate(None, after) is None
    assert total_hit_rate(before, {})["hit_rate"] is None  # type: ignore[index]


@pytest.fixture
def server() -> Iterator[dict[str, Any]]:
    """A loopback HTTP server; ``routes`` maps a path to (status, body)."""
    routes: dict[str, tuple[int, str]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = routes.get(self.path, (404, "not found"))
            self.send_response(status)
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *_: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = httpd.server_address[1]
    allow_loopback_port(port)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield {"routes": routes, "root": f"http://127.0.0.1:{port}"}
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_gateway_lists_its_servers_and_each_is_read(server: dict[str, Any]) -> None:
    root = server["root"]
    models = [
        {"name": "coder", "url": f"{root}/v1"},
        {"name": "auditor", "url": None},  # not started yet
    ]
    server["routes"]["/running"] = (200, json.dumps({"models": models}))
    server["routes"]["/metrics"] = (200, METRICS)
    assert endpoint_counters(f"{root}/v1") == {"coder": {"queries": 1500.0, "hits": 640.0}}


def test_a_plain_vllm_server_is_read_directly(server: dict[str, Any]) -> None:
    server["routes"]["/metrics"] = (200, METRICS)
    found = endpoint_counters(f"{server['root']}/v1")
    assert found == {"server": {"queries": 1500.0, "hits": 640.0}}


def test_an_endpoint_without_metrics_gives_none(server: dict[str, Any]) -> None:
    assert endpoint_counters(f"{server['root']}/v1") is None


def test_metrics_without_prefix_cache_counters_give_none(server: dict[str, Any]) -> None:
    """Another server's metrics (or vLLM's without prefix caching): no hit rate, not 0 of 0."""
    server["routes"]["/metrics"] = (200, "fake_footprint_bytes 1073741824\n")
    assert endpoint_counters(f"{server['root']}/v1") is None


def test_stretches_measured_apart_combine_by_their_tokens() -> None:
    swarm = {"queried_tokens": 300, "hit_tokens": 120, "hit_rate": 0.4}
    plain = {"queried_tokens": 100, "hit_tokens": 0, "hit_rate": 0.0}
    assert combined([swarm, plain]) == {"queried_tokens": 400, "hit_tokens": 120, "hit_rate": 0.3}
    assert combined([swarm, None]) is None
    assert combined([])["hit_rate"] is None  # type: ignore[index]
