"""A model call is cut by its liveness, never by a fixed deadline (agents.stream).

The fake model server streams at a scripted pace (``piece_s``) or stalls (``stall_after``);
the idle limits here are a second or two, so a call that streams for longer than its idle
limit shows that progress, not wall time, decides.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from langchain_core.messages import HumanMessage

from agents.coder import looping, partial_code
from agents.stream import CallWatch, Liveness, StalledCallError, StreamSink, stream_answer, watching
from agents.structured import chat_model
from graphs.coding import _without_stragglers
from runtime.progress import ProgressClock, work_done
from tests.fakes import FakeOpenAI

ANSWER = "```python\ndef double(x):\n    return 2 * x\n```"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def _ask(fake: FakeOpenAI, http: httpx.AsyncClient) -> tuple[object, list[HumanMessage]]:
    llm = chat_model(base_url=fake.base_url, model=fake.model, max_tokens=200, http_client=http)
    return llm, [HumanMessage("double a number")]


async def test_a_call_that_streams_longer_than_its_idle_limit_completes(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"content": ANSWER, "piece_s": 0.15})  # 13 pieces: about 2 s
    llm, messages = _ask(fake_openai, http)
    started = time.monotonic()
    with watching(CallWatch(Liveness(idle_s=0.6, poll_s=0.05))):
        answer = await stream_answer(llm, messages, "m")  # type: ignore[arg-type]
    assert time.monotonic() - started > 1.2  # well past the idle limit, and never cut
    assert answer.text == ANSWER and answer.finish_reason == "stop"


async def test_a_stalled_stream_is_cut_at_its_idle_limit_keeping_what_it_streamed(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"content": ANSWER, "stall_after": 3})
    llm, messages = _ask(fake_openai, http)
    sink = StreamSink()
    started = time.monotonic()
    with (
        watching(CallWatch(Liveness(idle_s=0.8, poll_s=0.05), sink=sink)),
        pytest.raises(StalledCallError, match="no new token") as info,
    ):
        await stream_answer(llm, messages, "m")  # type: ignore[arg-type]
    assert 0.7 < time.monotonic() - started < 5
    assert info.value.partial == ANSWER[:12] == sink.text
    assert sink.chunks == 3 and sink.first_token_s is not None


async def test_waiting_for_the_first_token_is_alive_while_the_server_works(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    """Queued behind other streams (the probe's counter moves): not cut, however long."""
    fake_openai.script({"content": ANSWER, "delay_s": 2.0})
    work = 0.0

    async def busy_server(model: str) -> float:
        nonlocal work
        work += 1
        return work

    llm, messages = _ask(fake_openai, http)
    with watching(CallWatch(Liveness(idle_s=0.6, poll_s=0.05), probe=busy_server)):
        answer = await stream_answer(llm, messages, "m")  # type: ignore[arg-type]
    assert answer.text == ANSWER


async def test_waiting_on_an_idle_server_is_cut(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"content": ANSWER, "delay_s": 30.0})

    async def idle_server(model: str) -> float:
        return 7.0

    llm, messages = _ask(fake_openai, http)
    with (
        watching(CallWatch(Liveness(idle_s=0.6, poll_s=0.05), probe=idle_server)),
        pytest.raises(StalledCallError, match="no first token"),
    ):
        await stream_answer(llm, messages, "m")  # type: ignore[arg-type]


def test_a_cut_answer_competes_only_with_a_whole_block() -> None:
    assert partial_code(ANSWER + "\nprint(double(2))\n") == "def double(x):\n    return 2 * x\n"
    assert partial_code("```python\ndef double(x):\n    return") is None
    assert partial_code("    return 2 * x\n```\n", begun="```python\ndef double(x):\n") == (
        "def double(x):\n    return 2 * x\n"
    )
    assert partial_code("") is None


def test_work_is_read_from_vllm_counters() -> None:
    text = (
        "# HELP vllm:prompt_tokens_total x\n"
        'vllm:prompt_tokens_total{model_name="m"} 120.0\n'
        'vllm:generation_tokens_total{model_name="m"} 30.0\n'
        "vllm:num_requests_running 2\n"
    )
    assert work_done(text) == 150.0
    assert work_done("fake_footprint_bytes 12\n") is None
    clock = ProgressClock(last=0.0)
    assert not clock.observe(150.0, now=5.0)  # the first reading only sets the mark
    assert clock.observe(151.0, now=6.0) and clock.last == 6.0
    assert not clock.observe(None, now=9.0) and clock.silent_for(now=9.0) == 3.0


def test_an_answer_that_repeats_itself_is_looping_and_progress_is_not() -> None:
    line = "    result.append(value * 2)  # double it\n"
    assert looping("```python\ndef f(values):\n" + line * 8)
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(12))
    assert not looping("```python\ndef f(values):\n" + progress)
    assert not looping(line * 2)  # too short to tell


async def _stream_into(sink: StreamSink, text: str, pause_s: float) -> str:
    for start in range(0, len(text), 40):
        sink.text += text[start : start + 40]
        await asyncio.sleep(pause_s)
    return "done"


async def test_after_the_greedy_answer_only_a_looping_sample_is_cut() -> None:
    sinks = [StreamSink(), StreamSink(), StreamSink()]
    line = "    result.append(value * 2)  # double it\n"
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(30))
    calls = [
        _stream_into(sinks[0], "def f(): pass\n", 0.05),  # the greedy one: quick
        _stream_into(sinks[1], progress, 0.1),  # slow, but new lines: writes on
        _stream_into(sinks[2], line * 200, 0.02),  # repeats itself: cut
    ]
    cuts: dict[int, str] = {}
    answers = await _without_stragglers(calls, 1.0, None, cuts, sinks)
    assert answers[:2] == ["done", "done"] and answers[2] is None
    assert cuts == {2: "looping"}


async def test_the_run_budget_cuts_what_still_writes() -> None:
    sinks = [StreamSink(), StreamSink()]
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(60))
    calls = [
        _stream_into(sinks[0], "def f(): pass\n", 0.05),
        _stream_into(sinks[1], progress, 0.2),
    ]
    cuts: dict[int, str] = {}
    started = time.monotonic()
    answers = await _without_stragglers(calls, 1.0, 1.0, cuts, sinks)
    assert time.monotonic() - started < 3
    assert answers == ["done", None] and cuts == {1: "budget"} and sinks[1].text
