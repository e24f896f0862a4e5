"""One chat call, streamed, cut only when it stops making progress (never at a fixed time).

A call that is receiving tokens is alive, however long it takes: on a busy machine or for a
long answer a 0.5B model on two cores streams for minutes. A call waiting for its first token
is alive while its model works (prefilling, or decoding other streams it is batched with, or
being swapped in by the gateway): :mod:`runtime.progress` reads that from the server's work
counters. A call is dead when it got no token and its server did no work for
:attr:`Liveness.idle_s`: then it raises :class:`StalledCallError` (a deadline, as before, so
a hung model gets no second try), with the text it had streamed.

Why not LangGraph's ``TimeoutPolicy(idle_timeout=..., refresh_on="heartbeat")``: it acts on a
whole node, and a coder node runs several calls at once, each with its own liveness; one
stalled candidate must not restart the others, and a streaming one must not be refreshed on
behalf of a stalled one. Nor langchain-openai's ``stream_chunk_timeout``: a fixed gap between
chunks cuts a request that is queued behind other streams, which is not stuck.

The call's rules (and where its streamed text goes) travel with it in a context variable set
by :func:`watching`, as a deadline travels with ``asyncio.timeout``: the agents' invokers keep
their signature, and whoever cancels a call (a straggler cut, the run's budget) still reads
what it streamed from its :class:`StreamSink`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk, UsageMetadata

from agents.structured import InvalidOutputError, RawAnswer, read_answer, request_failure
from agents.transport import EndpointDeadlineError
from runtime.progress import ProgressClock

ModelProbe = Callable[[str], Awaitable[float | None]]
"""Reads the work counter of the model a call asks, by name (see :mod:`runtime.progress`);
None when it cannot say. By name: a call that falls back to another model watches that one."""


@dataclass(frozen=True)
class Liveness:
    """When a streamed call counts as dead."""

    idle_s: float = 120.0
    """No token of its own and no work on its server for this long: the call is dead."""
    poll_s: float = 2.0
    """How often a silent call looks at the clock (and, once half idle, at the server)."""


@dataclass
class StreamSink:
    """What one call has streamed so far; kept when the call is cut."""

    text: str = ""
    chunks: int = 0
    first_token_s: float | None = None
    """Seconds from the request to its first chunk (None before one came)."""


@dataclass(frozen=True)
class CallWatch:
    """A call's liveness rules, how to read its server's work, and where its text goes."""

    liveness: Liveness = field(default_factory=Liveness)
    probe: ModelProbe | None = None
    """Reads the work counter of the call's model (None: its own tokens only)."""
    sink: StreamSink | None = None


_WATCH: ContextVar[CallWatch | None] = ContextVar("edgeswarm_call_watch", default=None)


@contextmanager
def watching(watch: CallWatch) -> Iterator[CallWatch]:
    """Calls made inside the block follow ``watch`` (this task and tasks it creates)."""
    token = _WATCH.set(watch)
    try:
        yield watch
    finally:
        _WATCH.reset(token)


def current_watch() -> CallWatch:
    """The rules the current call follows (the defaults outside :func:`watching`)."""
    return _WATCH.get() or CallWatch()


class StalledCallError(EndpointDeadlineError):
    """No token and no work on the model's server for the idle limit.

    ``partial`` is the text the call had streamed.
    """

    def __init__(self, model: str, silent_s: float, partial: str, *, waited_first: bool) -> None:
        self.model = model
        self.partial = partial
        what = "no first token" if waited_first else "no new token"
        super().__init__(
            f"model {model}: {what} and no work on its server for {silent_s:.0f} s "
            f"(stalled; {len(partial)} characters streamed)"
        )


Ending = Callable[[str], int | None]
"""Where an answer streamed so far is done (the index its text ends at), or None: what the
client reads as the answer's end when the server would go on (see :func:`stream_answer`)."""


async def stream_answer(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    model: str,
    *,
    ends: Ending | None = None,
    **request: Any,
) -> RawAnswer:
    """One streamed chat answer (text, finish reason, usage), cut only when it stalls.

    ``ends``: read after each chunk; once it gives an index, the stream is closed (the server
    stops the request) and the answer is the text up to there, ended as ``stop``. Such a call
    asks vLLM for its usage so far in every chunk (``continuous_usage_stats``), so an answer
    ended early still has its token counts; a server that sends none gives the chunks received
    and no prompt count.

    Raises:
        StalledCallError: the call stalled (see the module's docstring).
        EndpointUnavailableError, EndpointDeadlineError, RequestRefusedError: what
            :mod:`agents.transport` makes of a request that got no answer.
        InvalidOutputError: the stream held nothing a chat model answers.
    """
    watch = current_watch()
    sink = watch.sink if watch.sink is not None else StreamSink()
    sink.text, sink.chunks, sink.first_token_s = "", 0, None
    if ends is not None:
        request["extra_body"] = {**(request.get("extra_body") or {}), **_USAGE_SO_FAR}
    stream = llm.astream(list(messages), stream_usage=True, **request)
    try:
        merged, usage, end = await _read(stream, watch, sink, model, ends)
    except (TimeoutError, openai.APIError) as err:
        if isinstance(err, StalledCallError):
            raise
        raise request_failure(model, err) from err
    except ValueError as err:  # langchain-core: "No generation chunks were returned"
        raise InvalidOutputError(model, f"the stream held no chat answer ({err})") from err
    if end is not None:
        return RawAnswer(sink.text[:end], "stop", *_counts(usage, sink.chunks))
    if not isinstance(merged, AIMessageChunk):
        raise InvalidOutputError(model, "the stream held no chat answer")
    answer = read_answer(merged)
    if ends is None or usage is None:
        return answer
    return RawAnswer(answer.text, answer.finish_reason, *_counts(usage, answer.completion_tokens))


async def _read(
    stream: AsyncIterator[BaseMessageChunk],
    watch: CallWatch,
    sink: StreamSink,
    model: str,
    ends: Ending | None,
) -> tuple[BaseMessageChunk | None, UsageMetadata | None, int | None]:
    """The stream's chunks merged, the last usage one held, and where ``ends`` ended it.

    The usage is the last one a chunk held: with continuous stats, each holds the counts so
    far. The end is None when the server ended the answer.
    """
    started = time.monotonic()
    clock = ProgressClock(last=started)
    merged: BaseMessageChunk | None = None
    usage: UsageMetadata | None = None
    async with aclosing(_alive(stream, watch, clock, sink, model)) as chunks:
        async for chunk in chunks:
            merged = chunk if merged is None else merged + chunk
            if isinstance(chunk, AIMessageChunk) and chunk.usage_metadata:
                usage = chunk.usage_metadata
            if not chunk.content:
                continue
            sink.text += chunk.text
            sink.chunks += 1
            if sink.first_token_s is None:
                sink.first_token_s = time.monotonic() - started
            end = ends(sink.text) if ends is not None else None
            if end is not None:
                return merged, usage, end
    return merged, usage, None


_USAGE_SO_FAR = {"stream_options": {"include_usage": True, "continuous_usage_stats": True}}
"""What asks vLLM for the usage so far in every chunk (langchain-openai's own
``stream_options`` holds ``include_usage`` only; the request's ``extra_body`` replaces it)."""


def _counts(usage: UsageMetadata | None, written: int) -> tuple[int, int]:
    """Prompt and completion tokens from a chunk's usage so far (``written`` without one)."""
    if usage is None:
        return 0, written
    return int(usage["input_tokens"]), int(usage["output_tokens"])


async def _alive(
    stream: AsyncIterator[BaseMessageChunk],
    watch: CallWatch,
    clock: ProgressClock,
    sink: StreamSink,
    model: str,
) -> AsyncGenerator[BaseMessageChunk, None]:
    """The stream's chunks; raises :class:`StalledCallError` when it and its server stall."""
    iterator = aiter(stream)
    rules = watch.liveness
    try:
        while True:
            step = asyncio.ensure_future(anext(iterator))
            try:
                while True:
                    done, _ = await asyncio.wait({step}, timeout=rules.poll_s)
                    if done:
                        break
                    await _check(watch, clock, sink, model)
            except BaseException:
                step.cancel()  # and let it end, so the stream can be closed after it
                await asyncio.wait({step})
                raise
            try:
                chunk = step.result()
            except StopAsyncIteration:
                return
            clock.touch()
            yield chunk
    finally:
        closer = getattr(stream, "aclose", None)
        if closer is not None:
            await closer()


async def _check(watch: CallWatch, clock: ProgressClock, sink: StreamSink, model: str) -> None:
    """Raise when the call has been silent for the idle limit and its server did no work."""
    idle_s = watch.liveness.idle_s
    silent = clock.silent_for()
    if silent < idle_s / 2:
        return
    if watch.probe is not None:
        clock.observe(await watch.probe(model))  # the first reading only sets the mark
        silent = clock.silent_for()
    if silent >= idle_s:
        raise StalledCallError(model, silent, sink.text, waited_first=sink.chunks == 0)
