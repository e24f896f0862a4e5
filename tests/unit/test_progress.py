"""Liveness of a model server (:mod:`runtime.progress`), read from its work counters.

vLLM's prompt and generation token counters only grow while the server works for someone;
:func:`work_done` sums them from the ``/metrics`` text, :func:`metrics_probe` reads them from a
server, and a :class:`ProgressClock` says when a call (or a model) last made progress: an event
of its own, or a reading of the counters that moved. How the agents and the gateway cut calls
by it is in ``test_liveness.py`` and the gateway's tests.
"""

from __future__ import annotations

import httpx
import pytest

from runtime.progress import ProgressClock, metrics_probe, work_done

PAGE = """\
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="a"} 1200.0
vllm:prompt_tokens_total{model_name="b"} 300.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
vllm:generation_tokens_total{model_name="a"} 45.0
vllm:generation_tokens_created{model_name="a"} 1.7e9
vllm:num_requests_running{model_name="a"} 2.0
vllm:request_prompt_tokens_sum{model_name="a"} 99.0
"""


def test_work_is_every_prompt_and_generation_token_on_the_page() -> None:
    assert work_done(PAGE) == 1545.0  # both models, both counters; nothing else
    assert work_done("vllm:generation_tokens_total 7\n") == 7.0  # without labels
    assert work_done("  vllm:prompt_tokens_total 3  \n") == 3.0


def test_a_page_without_the_counters_says_nothing() -> None:
    assert work_done("") is None
    assert work_done("# HELP vllm:prompt_tokens_total x\nfake_server 1\n") is None
    # an unreadable value is skipped, not a crash: the other counter still counts
    assert work_done("vllm:prompt_tokens_total NaNs\nvllm:generation_tokens_total 4\n") == 4.0


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_clock_starts_as_progress_and_each_own_event_is_progress() -> None:
    clock = Clock()
    progress = ProgressClock(clock=clock)
    assert progress.last == 50.0 and progress.silent_for() == 0.0 and progress.events == 0
    clock.now = 58.0
    assert progress.silent_for() == 8.0
    progress.touch()
    progress.touch()
    assert progress.silent_for() == 0.0 and progress.events == 2
    progress.touch(now=55.0)  # an event noted with its own time
    assert progress.last == 55.0 and progress.silent_for(now=60.0) == 5.0


def test_only_a_reading_that_moved_is_progress() -> None:
    clock = Clock()
    progress = ProgressClock(clock=clock)
    clock.now = 60.0
    assert not progress.observe(100.0)  # the first reading only sets the mark
    assert progress.work == 100.0 and progress.last == 50.0 and progress.events == 0
    assert not progress.observe(100.0)  # the server did nothing since
    assert not progress.observe(None)  # the server could not say: no news
    assert progress.work == 100.0 and progress.silent_for() == 10.0
    clock.now = 70.0
    assert progress.observe(130.0)
    assert progress.last == 70.0 and progress.events == 1 and progress.work == 130.0
    assert progress.observe(0.0, now=71.0)  # a restarted server's counters: moved too
    assert progress.last == 71.0


async def test_the_probe_reads_the_server_root_and_says_nothing_on_trouble() -> None:
    seen: list[str] = []
    replies = [
        httpx.Response(200, text=PAGE),
        httpx.Response(503, text="loading"),
        httpx.Response(200, text="fake_server 1\n"),
    ]

    async def server(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if not replies:
            raise httpx.ConnectError("connection refused", request=request)
        return replies.pop(0)

    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        probe = metrics_probe(client, "http://server:8000/")
        readings = [await probe() for _ in range(4)]
    assert readings == [1545.0, None, None, None]
    assert seen == ["http://server:8000/metrics"] * 4


@pytest.mark.parametrize("timeout_s", [0.5, 5.0])
async def test_the_probe_waits_its_timeout_at_most(timeout_s: float) -> None:
    asked: list[object] = []

    async def server(request: httpx.Request) -> httpx.Response:
        asked.append(request.extensions["timeout"]["read"])
        return httpx.Response(200, text=PAGE)

    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        await metrics_probe(client, "http://server:8000", timeout_s=timeout_s)()
    assert asked == [timeout_s]
