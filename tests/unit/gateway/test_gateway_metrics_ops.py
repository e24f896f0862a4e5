"""The gateway's metrics as an operator scrapes them (issue 42): its own, cleaned up, and each
backend's own ``/metrics`` through ``GET /upstream/{name}/metrics``.

Every page is read with ``prometheus_client``'s own parser, as Prometheus would read it.
"""

from __future__ import annotations

from pathlib import Path

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from runtime.gateway.metrics import PREFIX, SCRAPED_HELP, GatewayMetrics, Gauges
from runtime.gateway.policies import ModelState
from tests.prometheus import sample
from tests.support.gateway import (
    MB,
    TOKEN,
    Live,
    fake_model,
    live_fakes,
    live_gateway,
    with_token_file,
    write_config,
)

BEARER = {"Authorization": f"Bearer {TOKEN}"}
GiB = 2**30


def families(text: str) -> dict[str, Metric]:
    """The page's metric families by name (a counter's without ``_total``); raises if unparsable."""
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(page: dict[str, Metric], sample_name: str, **labels: str) -> float | None:
    """The value of the sample ``sample_name`` with exactly ``labels`` (None: no such sample)."""
    for family in page.values():
        for found in family.samples:
            if found.name == sample_name and found.labels == labels:
                return float(found.value)
    return None


def assert_real_help(family: Metric) -> None:
    """A help text that says something: not the metric's own name, spaced or not."""
    said = family.documentation.strip().rstrip(".").lower()
    short = family.name.removeprefix(PREFIX)
    assert said, family.name
    assert said.replace(" ", "_") not in (family.name, short), (family.name, said)
    assert not said.startswith("the gateway's"), (family.name, said)  # the fallback text


# -- GatewayMetrics alone ------------------------------------------------------------------


def test_metrics_render_as_prometheus_text() -> None:
    metrics = GatewayMetrics()
    metrics.swap("a", "load", 1.5)
    metrics.swap("a", "load", 0.5)
    metrics.swap("a", "stop", 0.25)
    metrics.request("a", "ok", 0.3)
    metrics.request("a", "deadline_exceeded", 30)
    metrics.admitted("a", "queued", 2.0)
    metrics.admitted("a", "rejected")
    metrics.first_token("a", 0.2)
    text = metrics.render({"budget_bytes": [({}, float(7 * GiB))], "x": [({"model": 'q"'}, 1.0)]})
    assert sample(text, "edgeswarm_gateway_swaps_total", model="a", kind="load") == 2
    assert sample(text, "edgeswarm_gateway_swap_duration_seconds_sum", model="a", kind="load") == 2
    assert sample(text, "edgeswarm_gateway_requests_total", model="a", outcome="ok") == 1
    assert sample(text, "edgeswarm_gateway_budget_bytes") == 7 * GiB
    assert sample(text, "edgeswarm_gateway_x", model='q"') == 1
    # distributions: request latency, queue wait, swap duration per kind, first token
    latency = "edgeswarm_gateway_request_duration_seconds"
    assert sample(text, f"{latency}_count", model="a", outcome="ok") == 1
    assert sample(text, f"{latency}_sum", model="a", outcome="ok") == 0.3
    assert sample(text, f"{latency}_sum", model="a", outcome="deadline_exceeded") == 30
    assert sample(text, "edgeswarm_gateway_queue_wait_seconds_sum", model="a") == 2.0
    wait = "edgeswarm_gateway_queue_wait_seconds_bucket"
    assert sample(text, wait, model="a", le="1.0") == 0
    assert sample(text, wait, model="a", le="2.5") == 1
    swap = "edgeswarm_gateway_swap_duration_seconds_count"
    assert sample(text, swap, model="a", kind="load") == 2
    assert sample(text, swap, model="a", kind="stop") == 1
    assert sample(text, "edgeswarm_gateway_time_to_first_token_seconds_count", model="a") == 1
    assert sample(text, "edgeswarm_gateway_admissions_total", model="a", path="rejected") == 1
    deadlines = sample(
        text, "edgeswarm_gateway_requests_total", model="a", outcome="deadline_exceeded"
    )
    assert deadlines == 1
    for gone in ("swap_seconds", "rejected", "deadlines"):  # duplicates of the series above
        assert f"edgeswarm_gateway_{gone}_total" not in text
    assert "_created" not in text  # clutter: a creation time beside every series
    # the gauges are the scrape's own: a later render without them has none
    assert sample(metrics.render({}), "edgeswarm_gateway_budget_bytes") is None
    assert metrics.swap_count() == 2


def test_token_counters_count_what_count_tokens_is_given_once() -> None:
    metrics = GatewayMetrics()
    metrics.know(["a", "b"])
    page = families(metrics.render({}))
    assert page[f"{PREFIX}prompt_tokens"].type == "counter"
    for model in ("a", "b"):  # shown from the start, at 0
        assert value(page, f"{PREFIX}prompt_tokens_total", model=model) == 0
        assert value(page, f"{PREFIX}completion_tokens_total", model=model) == 0
    metrics.count_tokens("a", 5, 20)
    metrics.count_tokens("a", 7, 1)
    metrics.count_tokens("b", -3, 2)  # a nonsense usage counts nothing, never goes back
    metrics.request("a", "ok", 0.1)  # counting the request counts no tokens
    page = families(metrics.render({}))
    assert value(page, f"{PREFIX}prompt_tokens_total", model="a") == 12
    assert value(page, f"{PREFIX}completion_tokens_total", model="a") == 21
    assert value(page, f"{PREFIX}prompt_tokens_total", model="b") == 0
    assert value(page, f"{PREFIX}completion_tokens_total", model="b") == 2
    assert metrics.tokens[("a", "prompt")] == 12 and metrics.tokens[("b", "completion")] == 2


def test_latency_is_split_by_outcome_and_duplicates_are_gone() -> None:
    metrics = GatewayMetrics()
    metrics.know(["a"])
    metrics.request("a", "ok", 2.0)
    metrics.request("a", "upstream_error", 0.01)
    metrics.request("a", "deadline_exceeded", 30.0)
    metrics.admitted("a", "rejected")
    metrics.swap("a", "load", 1.5)
    page = families(metrics.render({}))
    latency = page[f"{PREFIX}request_duration_seconds"]
    assert all("outcome" in s.labels for s in latency.samples)
    name = f"{PREFIX}request_duration_seconds_sum"
    assert value(page, name, model="a", outcome="ok") == 2.0
    assert value(page, name, model="a", outcome="upstream_error") == 0.01
    # what the removed series said, read where it stays
    assert value(page, f"{PREFIX}admissions_total", model="a", path="rejected") == 1
    deadlines = value(page, f"{PREFIX}requests_total", model="a", outcome="deadline_exceeded")
    assert deadlines == 1
    assert value(page, f"{PREFIX}swap_duration_seconds_sum", model="a", kind="load") == 1.5
    for gone in ("rejected", "deadlines", "swap_seconds"):
        assert f"{PREFIX}{gone}" not in page


def test_a_scraped_total_is_a_counter_with_its_help() -> None:
    metrics = GatewayMetrics()
    gauges: Gauges = {
        "budget_violations_total": [({}, 2.0)],
        "budget_bytes": [({}, 5.0)],
        "model_state": [({"model": "a", "state": "ready"}, 1.0)],
    }
    page = families(metrics.render(gauges))
    violations = page[f"{PREFIX}budget_violations"]
    assert violations.type == "counter"
    assert [(s.name, s.value) for s in violations.samples] == [
        (f"{PREFIX}budget_violations_total", 2.0)
    ]
    assert page[f"{PREFIX}budget_bytes"].type == "gauge"
    for name in ("budget_violations", "budget_bytes", "model_state"):
        assert_real_help(page[f"{PREFIX}{name}"])
        assert page[f"{PREFIX}{name}"].documentation in SCRAPED_HELP.values()


# -- a live gateway in front of a fake vLLM -------------------------------------------------


async def scrape(live: Live, path: str = "/metrics") -> dict[str, Metric]:
    reply = await live.http.get(f"{live.url}{path}")
    assert reply.status_code == 200, reply.text
    return families(reply.text)


def states_of(page: dict[str, Metric], model: str) -> dict[str, float]:
    return {
        s.labels["state"]: s.value
        for s in page[f"{PREFIX}model_state"].samples
        if s.labels["model"] == model
    }


async def test_an_operator_scrapes_the_gateway_and_its_vllm_backend(
    tmp_path: Path, tag: str
) -> None:
    models = [fake_model(n, tag, tokens=20, token_rate=100) for n in "ab"]
    config = with_token_file(write_config(tmp_path, models, 1000 * MB))
    every_state = {str(state) for state in ModelState}
    async with live_gateway(config, tag) as live:
        unauthorized = await live.http.get(f"{live.url}/upstream/a/metrics")
        assert unauthorized.status_code == 401, unauthorized.text
        live.http.headers.update(BEARER)

        page = await scrape(live)
        assert not [s.name for f in page.values() for s in f.samples if s.name.endswith("_created")]
        assert set(live.service.scheduler.gauges()) <= set(SCRAPED_HELP)
        for family in page.values():
            if family.name.startswith(PREFIX):
                assert_real_help(family)
        violations = page[f"{PREFIX}budget_violations"]
        assert violations.type == "counter" and violations.samples[0].value == 0
        for model in "ab":  # every state, 0 or 1, before any model ever ran
            assert states_of(page, model) == {s: float(s == "stopped") for s in every_state}
        assert page["process_cpu_seconds"].type == "counter"
        assert (value(page, "process_resident_memory_bytes") or 0) > 0
        assert value(page, f"{PREFIX}prompt_tokens_total", model="a") == 0

        stopped = await live.http.get(f"{live.url}/upstream/a/metrics")
        assert stopped.status_code == 503, stopped.text
        error = stopped.json()["error"]
        assert error["type"] == "model_unavailable" and "is stopped" in error["message"]
        assert (await live.model_info("a"))["state"] == "stopped" and not live_fakes(tag)
        unknown = await live.http.get(f"{live.url}/upstream/nope/metrics")
        assert unknown.status_code == 404
        assert unknown.json()["error"]["type"] == "model_not_found", unknown.text
        bad = await live.http.get(f"{live.url}/upstream/..%2Fx/metrics")
        assert bad.status_code == 400, bad.text

        reply = await live.chat("a")
        assert reply.status_code == 200, reply.text
        usage = reply.json()["usage"]
        upstream = await scrape(live, "/upstream/a/metrics")
        running = upstream["vllm:num_requests_running"]
        assert running.type == "gauge" and running.samples[0].labels == {"model_name": "a"}
        assert upstream["vllm:gpu_cache_usage_perc"].type == "gauge"
        assert upstream["vllm:generation_tokens"].type == "counter"
        assert (value(upstream, "vllm:generation_tokens_total", model_name="a") or 0) > 0

        page = await scrape(live)
        assert states_of(page, "a") == {s: float(s == "ready") for s in every_state}
        latency = f"{PREFIX}request_duration_seconds_count"
        assert value(page, latency, model="a", outcome="ok") == 1
        # Tokens: counted once per answer by whoever calls count_tokens (the proxy), never
        # twice; then what count_tokens is given shows on the page as it is given.
        counted = (
            value(page, f"{PREFIX}prompt_tokens_total", model="a"),
            value(page, f"{PREFIX}completion_tokens_total", model="a"),
        )
        assert counted in {(0, 0), (usage["prompt_tokens"], usage["completion_tokens"])}
        live.service.metrics.count_tokens("a", usage["prompt_tokens"], usage["completion_tokens"])
        page = await scrape(live)
        prompt = value(page, f"{PREFIX}prompt_tokens_total", model="a")
        completion = value(page, f"{PREFIX}completion_tokens_total", model="a")
        assert (prompt, completion) == (
            (counted[0] or 0) + usage["prompt_tokens"],
            (counted[1] or 0) + usage["completion_tokens"],
        )
        assert prompt and completion

        await live.http.post(f"{live.url}/models/a/unload")
        gone = await live.http.get(f"{live.url}/upstream/a/metrics")
        assert gone.status_code == 503 and "is stopped" in gone.json()["error"]["message"]
        page = await scrape(live)
        assert states_of(page, "a") == {s: float(s == "stopped") for s in every_state}
