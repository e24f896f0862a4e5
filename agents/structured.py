"""One structured (guided-JSON) LLM call, with the checks guided decoding does not do.

The schema travels as ``response_format={"type": "json_schema", ...}`` (langchain-openai's
``with_structured_output(..., method="json_schema")``), which vLLM enforces token by token.
Never ``guided_json``: vLLM removed it and silently ignores it. Guided decoding guarantees the
grammar, not that the answer ends, so a cut-off answer (``finish_reason="length"``) becomes a
:class:`TruncatedOutputError` and anything unparsable an :class:`InvalidOutputError`. A request
without an answer raises what :mod:`agents.transport` says it means (resend it later, or a
deadline), else a :class:`RequestRefusedError`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr, ValidationError

from agents.transport import EndpointDeadlineError, status_failure, unreachable

T = TypeVar("T", bound=BaseModel)

CONNECT_S = 10.0
"""Seconds to connect to the endpoint before it counts as unreachable."""

# Worst-case characters per token for JSON text from these tokenizers, measured loosely:
# keys and punctuation are short tokens, free text averages about 3-4 characters.
_CHARS_PER_TOKEN = 2.5


class StructuredOutputError(RuntimeError):
    """A structured answer could not be obtained; says which model and why."""

    def __init__(
        self,
        model: str,
        reason: str,
        raw: str = "",
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> None:
        self.model = model
        self.reason = reason
        self.raw = raw[:500]
        self.prompt_tokens = prompt_tokens
        """Tokens the failed answer cost, where the server said (0 when unknown)."""
        self.completion_tokens = completion_tokens
        super().__init__(f"model {model}: {reason}")


class TruncatedOutputError(StructuredOutputError):
    """The answer hit its token budget before the JSON was complete."""


class InvalidOutputError(StructuredOutputError):
    """The answer is not valid JSON for the schema, or the request failed."""


class RequestRefusedError(InvalidOutputError):
    """The endpoint refused the request (400, 401, 404, 500...): resending will not help."""


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    """A validated answer and what it cost."""

    value: T
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str


def chat_model(
    *,
    base_url: str,
    model: str,
    max_tokens: int,
    api_key: str = "EMPTY",
    temperature: float = 0.0,
    seed: int | None = 0,
    timeout_s: float | None = None,
    http_client: httpx.AsyncClient | None = None,
) -> ChatOpenAI:
    """A langchain-openai chat model for an OpenAI-compatible vLLM (or gateway) endpoint.

    ``timeout_s`` bounds each read (None: no bound; connecting still gives up after
    :data:`CONNECT_S`). Calls are streamed and cut by their liveness (:mod:`agents.stream`),
    not by a read timeout nor by langchain-openai's ``stream_chunk_timeout`` (off here: a
    fixed gap between chunks cuts a request queued behind other streams).

    Pass ``http_client`` (and close it yourself) when more than one event loop may use
    the model over the process's life: langchain-openai's default client is cached per
    process and bound to the first loop that used it.
    """
    return ChatOpenAI(
        base_url=base_url,
        api_key=SecretStr(api_key),
        model=model,
        temperature=temperature,
        seed=seed,
        max_completion_tokens=max_tokens,
        # (connect, read, write, pool): a tuple, which both httpx and httpx2 take
        timeout=(CONNECT_S, timeout_s, timeout_s, None),
        stream_chunk_timeout=None,
        max_retries=0,  # retries are the caller's decision: a larger budget, another model
        http_async_client=http_client,
    )


def token_budget(schema: type[BaseModel], floor: int = 64) -> int:
    """A completion budget large enough for the biggest answer ``schema`` allows."""
    json_schema = schema.model_json_schema()
    chars = _max_chars(json_schema, json_schema.get("$defs", {}))
    return max(floor, int(chars / _CHARS_PER_TOKEN) + 32)


def _max_chars(node: dict[str, Any], defs: dict[str, Any]) -> int:
    if "$ref" in node:
        return _max_chars(defs[node["$ref"].split("/")[-1]], defs)
    branches = node.get("anyOf") or node.get("oneOf")
    if branches:
        return max(_max_chars(branch, defs) for branch in branches)
    if "const" in node:
        return 2 + len(json.dumps(node["const"]))
    kind = node.get("type")
    if kind == "object":
        props = node.get("properties", {})
        return 2 + sum(len(key) + 4 + _max_chars(sub, defs) for key, sub in props.items())
    if kind == "array":
        items = int(node.get("maxItems", 8))
        return 2 + items * (1 + _max_chars(node.get("items", {}), defs))
    if kind == "string":
        if "enum" in node:
            return 2 + max(len(str(value)) for value in node["enum"])
        return 2 + int(node.get("maxLength", 200))
    return 24  # numbers, booleans, null


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` body field for ``schema``: ``json_schema``, strict.

    The schema is openai's strict form of the pydantic model (every property required, no
    additional properties), as ``with_structured_output(method="json_schema", strict=True)``
    sends it; vLLM enforces it token by token.
    """
    strict = openai.pydantic_function_tool(schema)["function"]
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": strict["parameters"], "strict": True},
    }


async def ainvoke_structured(
    llm: BaseChatModel, schema: type[T], messages: Sequence[BaseMessage], *, model_name: str
) -> StructuredResult[T]:
    """Ask ``llm`` for an answer that validates against ``schema``; raise when it cannot.

    The answer is streamed (:func:`agents.stream.stream_answer`): it is cut only when it
    stalls, never while it makes progress. The schema goes in the request body as
    ``response_format`` (not through langchain's parse helper, which cannot stream with a
    liveness watch), and the answer is validated here.
    """
    from agents.stream import stream_answer  # stream builds on this module's errors

    start = time.monotonic()
    body = {"response_format": response_format(schema)}
    answer = await stream_answer(llm, messages, model_name, extra_body=body)
    return _checked(answer, schema, model_name, time.monotonic() - start)


def request_failure(model: str, err: Exception) -> Exception:
    """A request that got no usable answer: transient, a deadline, or refused."""
    if isinstance(err, TimeoutError | openai.APITimeoutError):
        return EndpointDeadlineError(f"model {model}: no answer before the client's timeout")
    if isinstance(err, openai.APIConnectionError):
        return unreachable(model, err)
    if isinstance(err, openai.APIStatusError):
        response = err.response
        failure = status_failure(model, response.status_code, response.headers, err.message)
        if failure is not None:
            return failure
    elif isinstance(err, openai.APIError) and (status := _streamed_status(err)) is not None:
        # an error event inside a stream already under way (the gateway's: the model's
        # server died, was unloaded, or stalled): it carries the status a whole answer would
        failure = status_failure(model, status, {}, err.message)
        if failure is not None:
            return failure
    return RequestRefusedError(model, f"request failed: {err}")


def _streamed_status(err: openai.APIError) -> int | None:
    """The HTTP status an in-stream error event names (``{"error": {"code": 503}}``)."""
    body = err.body
    code = body.get("code") if isinstance(body, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
        return code
    return None


def _first_error(err: ValidationError) -> str:
    problem = err.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "answer"
    return f"{where}: {problem['msg']} ({err.error_count()} problem(s))"


@dataclass(frozen=True)
class RawAnswer:
    """A chat answer's text, why it ended and what it cost, as the server reported."""

    text: str
    finish_reason: str
    """"" when the server gave none."""
    prompt_tokens: int
    completion_tokens: int

    def cost(self) -> dict[str, int]:
        """The token counts, as keyword arguments of the errors and results here."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


def read_answer(raw: AIMessage) -> RawAnswer:
    """The text, finish reason and token usage of one chat answer (0 where not reported)."""
    usage = raw.usage_metadata or {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    return RawAnswer(
        text=raw.content if isinstance(raw.content, str) else json.dumps(raw.content),
        finish_reason=str(raw.response_metadata.get("finish_reason", "")),
        prompt_tokens=int(usage["input_tokens"]),
        completion_tokens=int(usage["output_tokens"]),
    )


def _checked(
    answer: RawAnswer, schema: type[T], model_name: str, seconds: float
) -> StructuredResult[T]:
    text, finish, cost = answer.text, answer.finish_reason, answer.cost()
    if finish == "length":
        raise TruncatedOutputError(
            model_name, "the answer was cut off (finish_reason=length)", text, **cost
        )
    try:
        value = schema.model_validate_json(text)
    except ValidationError as err:
        reason = f"the answer does not match the schema: {_first_error(err)}"
        raise InvalidOutputError(model_name, reason, text, **cost) from None
    if finish not in {"stop", ""}:
        raise InvalidOutputError(model_name, f"unexpected finish_reason={finish}", text, **cost)
    return StructuredResult(
        value=value,
        model=model_name,
        seconds=seconds,
        finish_reason=finish or "stop",
        **cost,
    )
