"""agents.stream: a chat call streamed and cut only when it stops making progress (no token of
its own and no work on its server for the idle limit), never at a fixed time; what it streamed
is kept in its sink, and a request that got no answer becomes the transport's error.

The first tests stream from the fake model server at a scripted pace; the others use a chat
model in this process and a clock the test sets.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import httpx2
import openai
import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, UsageMetadata
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from agents.stream import (
    CallWatch,
    Liveness,
    StalledCallError,
    StreamSink,
    _check,
    current_watch,
    stream_answer,
    watching,
)
from agents.structured import InvalidOutputError, RawAnswer, chat_model
from agents.transport import EndpointDeadlineError, EndpointUnavailableError
from runtime.progress import ProgressClock
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


class Scripted(BaseChatModel):
    """A chat model in this process: streams ``pieces``, then ends the answer, stalls for ever
    (``stall``) or raises ``error``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pieces: list[str] = Field(default_factory=list)
    stall: bool = False
    error: Exception | None = None
    usage_so_far: bool = False
    """Each piece holds the usage so far, as with vLLM's ``continuous_usage_stats``."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError("streamed only")

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for number, piece in enumerate(self.pieces, 1):
            so_far = UsageMetadata(input_tokens=7, output_tokens=number, total_tokens=7 + number)
            chunk = AIMessageChunk(
                content=piece, usage_metadata=so_far if self.usage_so_far else None
            )
            yield ChatGenerationChunk(message=chunk)
        if self.error is not None:
            raise self.error
        if self.stall:
            await asyncio.Event().wait()
        if self.pieces:
            usage = UsageMetadata(input_tokens=5, output_tokens=3, total_tokens=8)
            if self.usage_so_far:
                usage = UsageMetadata(
                    input_tokens=7, output_tokens=len(self.pieces), total_tokens=0
                )
            last = AIMessageChunk(
                content="", response_metadata={"finish_reason": "stop"}, usage_metadata=usage
            )
            yield ChatGenerationChunk(message=last)


QUICK = Liveness(idle_s=0.2, poll_s=0.01)
"""Idle limits for calls that stall at once: the test waits a fifth of a second."""
ASK = [HumanMessage("write f")]


async def test_a_streamed_answer_fills_the_sink_and_keeps_its_finish_and_usage() -> None:
    sink = StreamSink(text="from an earlier call", chunks=9, first_token_s=1.0)
    with watching(CallWatch(sink=sink)):
        answer = await stream_answer(Scripted(pieces=["def f", "(): ", "pass"]), ASK, "m")
    assert answer == RawAnswer("def f(): pass", "stop", 5, 3)
    assert sink.text == "def f(): pass" and sink.chunks == 3  # the closing chunk holds no text
    assert sink.first_token_s is not None and sink.first_token_s != 1.0


async def test_a_call_that_stalls_is_cut_with_what_it_streamed() -> None:
    sink = StreamSink()
    with (
        watching(CallWatch(QUICK, sink=sink)),
        pytest.raises(StalledCallError, match="^model m: no new token and no work") as info,
    ):
        await stream_answer(Scripted(pieces=["def f", "():"], stall=True), ASK, "m")
    assert info.value.partial == "def f():" == sink.text and info.value.model == "m"
    assert str(info.value).endswith("(stalled; 8 characters streamed)")
    assert isinstance(info.value, EndpointDeadlineError)  # a hung model gets no second try
    with watching(CallWatch(QUICK)), pytest.raises(StalledCallError, match="no first token"):
        await stream_answer(Scripted(stall=True), ASK, "m")


async def test_a_request_that_got_no_answer_becomes_the_transports_error() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")  # openai's httpx
    refused = Scripted(error=openai.APIConnectionError(request=request))
    with pytest.raises(EndpointUnavailableError, match="the endpoint did not answer"):
        await stream_answer(refused, ASK, "m")
    late = Scripted(pieces=["def"], error=openai.APITimeoutError(request=request))
    with pytest.raises(EndpointDeadlineError, match="no answer before the client's timeout"):
        await stream_answer(late, ASK, "m")


async def test_a_stream_with_no_chunk_is_an_invalid_answer_the_call_policy_handles() -> None:
    """An endpoint that ends its stream at once: not a bare ValueError (which a run would
    take for bad input), but the answer error that the call's policy retries elsewhere."""
    with pytest.raises(InvalidOutputError, match="model m: the stream held no chat answer"):
        await stream_answer(Scripted(), ASK, "m")


async def test_a_silent_call_is_dead_only_when_its_server_did_no_work_for_the_idle_limit() -> None:
    now = [100.0]
    clock = ProgressClock(clock=lambda: now[0])
    readings = iter([5.0, 5.0, 6.0])
    asked: list[str] = []

    async def probe(model: str) -> float | None:
        asked.append(model)
        return next(readings)

    watch = CallWatch(Liveness(idle_s=10.0), probe=probe)
    sink = StreamSink()
    now[0] = 104.9
    await _check(watch, clock, sink, "m")
    assert asked == []  # silent for under half the limit: the server is not asked
    now[0] = 105.0
    await _check(watch, clock, sink, "m")
    assert asked == ["m"]  # the first reading only sets the mark
    now[0] = 110.0
    with pytest.raises(StalledCallError, match="no first token and no work on its server for 10 s"):
        await _check(watch, clock, sink, "m")  # the same reading: no work
    now[0] = 111.0
    await _check(watch, clock, sink, "m")  # the counter moved: alive again
    assert clock.silent_for() == 0.0 and asked == ["m"] * 3
    # without a probe its own tokens alone keep it alive
    streamed = StreamSink(text="de", chunks=2)
    quiet = ProgressClock(clock=lambda: now[0])
    now[0] += 9.9
    await _check(CallWatch(Liveness(idle_s=10.0)), quiet, streamed, "m")
    now[0] += 0.1
    with pytest.raises(StalledCallError, match="no new token") as info:
        await _check(CallWatch(Liveness(idle_s=10.0)), quiet, streamed, "m")
    assert info.value.partial == "de"


async def test_calls_follow_the_rules_set_around_them_and_the_tasks_they_start() -> None:
    async def rules() -> CallWatch:
        return current_watch()

    assert current_watch() == CallWatch()
    watch = CallWatch(Liveness(idle_s=5.0), sink=StreamSink())
    with watching(watch) as set_:
        assert set_ is watch and current_watch() is watch
        assert await asyncio.create_task(rules()) is watch
    assert current_watch() == CallWatch()


async def test_an_answer_that_ends_on_the_client_closes_its_request(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    """``ends`` reads the text streamed so far; at its index the call returns and the server's
    request ends, though the server would go on (here: stall) after it."""
    text = "```python\ndef f():\n    return 1\n\n# Check function\ndef check():\n"
    fake_openai.script({"content": text, "stall_after": len(text) // 4 - 2})
    llm, messages = _ask(fake_openai, http)
    sink = StreamSink()
    with watching(CallWatch(Liveness(idle_s=30.0, poll_s=0.05), sink=sink)):
        answer = await stream_answer(
            llm,  # type: ignore[arg-type]
            messages,
            "m",
            ends=lambda seen: seen.find("\n# Check") + 1 or None,
        )
    # this server sends no usage before the end: the chunks received count, no prompt
    assert answer == RawAnswer(text[: text.index("# Check")], "stop", 0, sink.chunks)
    asked = fake_openai.requests()[-1]["stream_options"]
    assert asked == {"include_usage": True, "continuous_usage_stats": True}
    for _ in range(100):  # the server sees the client leave
        info = (await http.get(fake_openai.base_url.removesuffix("/v1") + "/_fake/info")).json()
        if info["in_flight"] == 0:
            break
        await asyncio.sleep(0.05)
    assert info["in_flight"] == 0


async def test_an_answer_ended_early_keeps_the_usage_so_far() -> None:
    """Each chunk's usage is the counts so far: the last one is the answer's, not their sum."""
    pieces = ["def f", "(): ", "pass", "\n# Test", "s"]
    ended = await stream_answer(
        Scripted(pieces=pieces, usage_so_far=True),
        ASK,
        "m",
        ends=lambda text: text.find("#") if "#" in text else None,
    )
    assert ended == RawAnswer("def f(): pass\n", "stop", 7, 4)
    whole = await stream_answer(
        Scripted(pieces=pieces, usage_so_far=True), ASK, "m", ends=lambda text: None
    )
    assert whole == RawAnswer("def f(): pass\n# Tests", "stop", 7, 5)
