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
    timeout_s: float = 180.0,
    http_client: httpx.AsyncClient | None = None,
) -> ChatOpenAI:
    """A langchain-openai chat model for an OpenAI-compatible vLLM (or gateway) endpoint.

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
        timeout=timeout_s,
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


async def ainvoke_structured(
    llm: BaseChatModel, schema: type[T], messages: Sequence[BaseMessage], *, model_name: str
) -> StructuredResult[T]:
    """Ask ``llm`` for an answer that validates against ``schema``; raise when it cannot."""
    runnable = llm.with_structured_output(
        schema, method="json_schema", include_raw=True, strict=True
    )
    start = time.monotonic()
    try:
        out = await runnable.ainvoke(list(messages))
    except openai.LengthFinishReasonError as err:
        choices, usage = err.completion.choices, err.completion.usage
        raw = (choices[0].message.content or "") if choices else ""
        raise TruncatedOutputError(
            model_name,
            "the answer was cut off at its token budget (finish_reason=length)",
            raw,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        ) from None
    except ValidationError as err:
        # openai's parse helper validates the JSON itself when the schema is a class
        raise InvalidOutputError(
            model_name, f"the answer does not match the schema: {_first_error(err)}"
        ) from None
    except (TimeoutError, openai.APIError) as err:
        raise request_failure(model_name, err) from err
    seconds = time.monotonic() - start
    return _checked(out, schema, model_name, seconds)


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
    return RequestRefusedError(model, f"request failed: {err}")


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


def _checked(out: Any, schema: type[T], model_name: str, seconds: float) -> StructuredResult[T]:
    answer = read_answer(out["raw"])
    text, finish, cost = answer.text, answer.finish_reason, answer.cost()
    if finish == "length":
        raise TruncatedOutputError(
            model_name, "the answer was cut off (finish_reason=length)", text, **cost
        )
    if out.get("parsing_error") is not None or not isinstance(out.get("parsed"), schema):
        reason = f"the answer does not match the schema: {out.get('parsing_error')}"
        raise InvalidOutputError(model_name, reason, text, **cost)
    if finish not in {"stop", ""}:
        raise InvalidOutputError(model_name, f"unexpected finish_reason={finish}", text, **cost)
    return StructuredResult(
        value=out["parsed"],
        model=model_name,
        seconds=seconds,
        finish_reason=finish or "stop",
        **cost,
    )
