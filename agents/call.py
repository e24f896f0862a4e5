"""A structured call with a deadline, one retry on a larger budget, then the fallback model.

Order of attempts: the role's model with the schema-sized budget; the same model with a
larger budget (only when the first answer was cut off or invalid); the fallback model. A
timeout skips straight to the fallback. Before each attempt the model is leased, so a swap
happens before the prompt is sent and its wait is measured.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from agents.structured import (
    StructuredOutputError,
    StructuredResult,
    ainvoke_structured,
    token_budget,
)

T = TypeVar("T", bound=BaseModel)
ChatFactory = Callable[[str, int], BaseChatModel]
"""Builds a chat model for (model name, max tokens)."""
Leaser = Callable[[str], Awaitable[float]]
"""Makes a model ready to serve; returns the seconds spent waiting (a swap)."""


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
    timeout_s: float = 180.0


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


async def call_structured(
    schema: type[T],
    messages: Sequence[BaseMessage],
    policy: CallPolicy,
    chat: ChatFactory,
    lease: Leaser = no_lease,
) -> CallOutcome[T]:
    """Get a validated ``schema`` answer, retrying and falling back as the policy says."""
    trace = CallTrace()
    plan = _plan(policy, schema)
    index = 0
    while index < len(plan):
        model, budget = plan[index]
        trace.attempts.append(f"{model}@{budget}")
        try:
            async with asyncio.timeout(policy.timeout_s):
                trace.swap_wait_s += await lease(model)
                result = await ainvoke_structured(
                    chat(model, budget), schema, messages, model_name=model
                )
            trace.add(result.prompt_tokens, result.completion_tokens)
            return CallOutcome(result, trace)
        except TimeoutError:
            trace.errors.append(f"{model}: no answer within {policy.timeout_s:.0f} s")
            index = _next_model(plan, index)
            continue
        except StructuredOutputError as err:  # cut off or invalid: a larger budget, then fallback
            trace.errors.append(str(err))
            trace.add(err.prompt_tokens, err.completion_tokens)
        index += 1
    raise AgentCallError(trace)


def _next_model(plan: list[tuple[str, int]], index: int) -> int:
    """The first later attempt on a different model (a hung model gets no second try)."""
    current = plan[index][0]
    for later in range(index + 1, len(plan)):
        if plan[later][0] != current:
            return later
    return len(plan)
