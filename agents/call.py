"""A structured call: one retry on a larger budget, then the fallback model.

Order of attempts: the role's model with the schema-sized budget; the same model with a
larger budget (only when the first answer was cut off or invalid); the fallback model. A
timeout, and a request the endpoint refused, skip straight to the fallback. Before each
attempt the model is leased, so a swap happens before the prompt is sent and its wait is
measured.

No attempt has a fixed deadline: each call is streamed and cut only when it stalls (no token
and no work on its model's server for the idle limit, :mod:`agents.stream`), which raises a
deadline error (a hung model gets no second try). Within one attempt, a request the endpoint
could not take now (:class:`agents.transport.EndpointUnavailableError`: the gateway
restarting, a model server restarting, a full queue) is resent with backoff: a bounded number
of times, except for a full queue (429), which is waited out as its ``Retry-After`` says, up
to :attr:`CallPolicy.queue_wait_s`. That is not a new attempt: the answer was never produced,
so the budget and the model stay.

Why this is not LangGraph's node ``retry_policy`` or ``timeout`` (``TimeoutPolicy``): those act
on a whole node. A retried coder node would write all its candidates again for one that was
cut off, and a node deadline cannot tell a swap wait or a full queue (waited out, no new
attempt) from a model that loops. What changes between attempts here (a larger budget, then
the fallback model) is this module's domain; the graph uses LangGraph's own policies where
they fit: the researcher's ``cache_policy`` and ``error_handler`` (graphs/swarm.py).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from agents.stream import StalledCallError
from agents.structured import (
    RequestRefusedError,
    StructuredOutputError,
    StructuredResult,
    ainvoke_structured,
    token_budget,
)
from agents.transport import EndpointUnavailableError

T = TypeVar("T", bound=BaseModel)
ChatFactory = Callable[[str, int], BaseChatModel]
"""Builds a chat model for (model name, max tokens)."""
Invoker = Callable[
    [BaseChatModel, type[T], Sequence[BaseMessage], str], Awaitable[StructuredResult[T]]
]
"""Asks a chat model for one validated answer (model, schema, messages, model name): guided
JSON by default (:func:`agents.structured.ainvoke_structured`), or a fenced code block."""
Leaser = Callable[[str], Awaitable[float]]
"""Makes a model ready to serve; returns the seconds spent waiting (a swap). Raises
:class:`EndpointUnavailableError` when the endpoint cannot do it now."""


async def no_lease(model: str) -> float:
    """The leaser for a plain server: nothing to wait for."""
    return 0.0


@dataclass(frozen=True)
class CallPolicy:
    """How hard to try for one structured answer."""

    model: str
    fallback_model: str | None = None
    max_tokens: int | None = None
    """Budget of the first attempt; None sizes it from the schema."""
    max_tokens_cap: int = 3072
    retry_factor: float = 1.75
    queue_wait_s: float = 1800.0
    """The longest one attempt waits out a full queue (429) before it gives up."""
    resends: int = 4
    """Resends of a request the endpoint could not take (unreachable, 502, 503) per attempt;
    a full queue (429) is waited out (up to ``queue_wait_s``) without counting."""
    backoff_s: float = 1.0
    """Wait before the first resend; it doubles with each one, up to ``max_backoff_s``."""
    max_backoff_s: float = 8.0
    """The longest wait between resends (a ``Retry-After`` may ask for more)."""


@dataclass
class CallTrace:
    """What the attempts cost, successful or not."""

    attempts: list[str] = field(default_factory=list)
    swap_wait_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    """Tokens sent over every attempt whose usage the server reported (not a timed-out one,
    nor one the OpenAI client rejected as non-JSON before returning it)."""
    completion_tokens: int = 0
    """Tokens received over the same attempts, cut-off and schema-invalid answers included."""
    resends: int = 0
    """Requests sent again because the endpoint could not take them (not new attempts)."""
    last_resend_reason: str = ""
    """Why the current attempt's last request was resent ("" when none was)."""
    stalled: int = 0
    """Attempts cut because they stalled (no token, no progress on the model)."""

    @property
    def last_model(self) -> str:
        """The model of the last attempt ("" before any)."""
        return self.attempts[-1].rsplit("@", 1)[0] if self.attempts else ""

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one attempt's tokens."""
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens


class AgentCallError(RuntimeError):
    """Every attempt failed; the message lists each failure."""

    def __init__(self, trace: CallTrace) -> None:
        self.trace = trace
        super().__init__("; ".join(trace.errors) or "no attempt was made")


@dataclass(frozen=True)
class CallOutcome(Generic[T]):
    """A validated answer and the trace of how it was obtained."""

    result: StructuredResult[T]
    trace: CallTrace


def _plan(policy: CallPolicy, schema: type[BaseModel]) -> list[tuple[str, int]]:
    first = min(policy.max_tokens or token_budget(schema), policy.max_tokens_cap)
    larger = min(int(first * policy.retry_factor), policy.max_tokens_cap)
    plan = [(policy.model, first)]
    if larger > first:
        plan.append((policy.model, larger))
    if policy.fallback_model and policy.fallback_model != policy.model:
        plan.append((policy.fallback_model, larger))
    return plan


def resend_delay(policy: CallPolicy, failures: int, retry_after_s: float | None) -> float:
    """Seconds to wait before resending: exponential backoff, at least the ``Retry-After``."""
    backoff = min(policy.max_backoff_s, policy.backoff_s * 2.0 ** max(0, failures - 1))
    return max(backoff, retry_after_s or 0.0)


def _not_soon(err: EndpointUnavailableError, policy: CallPolicy) -> bool:
    """Whether the endpoint says the model stays unavailable for longer than a backoff.

    A failed start in its cool-down, say: the fallback answers sooner. A full queue (429) is
    waited out.
    """
    late = err.retry_after_s is not None and err.retry_after_s > policy.max_backoff_s
    return late and not err.backpressure


async def _attempt(
    schema: type[T],
    messages: Sequence[BaseMessage],
    policy: CallPolicy,
    step: tuple[str, int],
    chat: ChatFactory,
    lease: Leaser,
    trace: CallTrace,
    invoke: Invoker[T],
) -> StructuredResult[T]:
    """Lease and ask; resend what the endpoint could not take, as far as the policy allows."""
    model, budget = step
    failures = 0
    trace.last_resend_reason = ""
    started = time.monotonic()
    while True:
        try:
            trace.swap_wait_s += await lease(model)
            return await invoke(chat(model, budget), schema, messages, model)
        except EndpointUnavailableError as err:
            failures += 0 if err.backpressure else 1
            waited_out = time.monotonic() - started > policy.queue_wait_s
            if failures > policy.resends or _not_soon(err, policy) or waited_out:
                raise
            trace.resends += 1
            trace.last_resend_reason = str(err)
            delay = resend_delay(policy, failures, err.retry_after_s)
            # jitter, not cryptography: runs turned away together must not return together
            await asyncio.sleep(delay * random.uniform(1.0, 1.25))  # noqa: S311


async def _guided_json(
    llm: BaseChatModel, schema: type[T], messages: Sequence[BaseMessage], model: str
) -> StructuredResult[T]:
    return await ainvoke_structured(llm, schema, messages, model_name=model)


async def call_structured(
    schema: type[T],
    messages: Sequence[BaseMessage],
    policy: CallPolicy,
    chat: ChatFactory,
    lease: Leaser = no_lease,
    invoke: Invoker[T] | None = None,
) -> CallOutcome[T]:
    """Get a validated ``schema`` answer, retrying and falling back as the policy says.

    ``invoke`` asks for the answer (default: guided JSON for ``schema``).
    """
    asker: Invoker[T] = invoke or _guided_json
    trace = CallTrace()
    plan = _plan(policy, schema)
    index = 0
    while index < len(plan):
        model, budget = plan[index]
        trace.attempts.append(f"{model}@{budget}")
        try:
            result = await _attempt(
                schema, messages, policy, plan[index], chat, lease, trace, asker
            )
            trace.add(result.prompt_tokens, result.completion_tokens)
            return CallOutcome(result, trace)
        except TimeoutError as err:  # stalled, or the endpoint's deadline (504)
            trace.stalled += isinstance(err, StalledCallError)
            trace.errors.append(_timed_out(model, err, trace))
            index = _next_model(plan, index)
        except (EndpointUnavailableError, RequestRefusedError) as err:
            trace.errors.append(str(err))  # the same request again would fare no better
            index = _next_model(plan, index)
        except StructuredOutputError as err:  # cut off or invalid: a larger budget, then fallback
            trace.errors.append(str(err))
            trace.add(err.prompt_tokens, err.completion_tokens)
            index += 1
    raise AgentCallError(trace)


def _timed_out(model: str, err: TimeoutError, trace: CallTrace) -> str:
    if str(err):
        return str(err)
    message = f"{model}: no answer (timed out)"
    if trace.last_resend_reason:
        message += f" (last resent after: {trace.last_resend_reason})"
    return message


def _next_model(plan: list[tuple[str, int]], index: int) -> int:
    """The first later attempt on a different model (a hung model gets no second try)."""
    current = plan[index][0]
    for later in range(index + 1, len(plan)):
        if plan[later][0] != current:
            return later
    return len(plan)
