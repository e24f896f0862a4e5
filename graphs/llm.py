"""How a node asks its role's model for a structured answer: lease, call, measure."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.config import get_stream_writer
from pydantic import BaseModel

from agents.call import AgentCallError, CallPolicy, CallTrace, Invoker, call_structured
from agents.coder import (
    CODE_TOKENS,
    DOCSTRING_WORDS,
    CodeDraft,
    CodeEnd,
    ainvoke_code,
    ainvoke_plain_code,
    checks_end,
    module_end,
)
from agents.stream import CallWatch, Liveness, ModelProbe, StreamSink, watching
from agents.structured import StructuredOutputError, ainvoke_structured, chat_model, token_budget
from agents.transport import (
    EndpointDeadlineError,
    EndpointUnavailableError,
    status_failure,
    unreachable,
)
from graphs.context import Context, Role
from graphs.endpoints import HostedEndpointError, with_default_endpoint
from graphs.roles import ROLES
from graphs.state import NodeMetrics
from runtime.logs import get_logger
from runtime.progress import metrics_probe

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
_log = get_logger("graph")


class NodeFailedError(RuntimeError):
    """A node could not get a usable answer from any model; ``metrics`` is what it cost."""

    def __init__(self, message: str, metrics: NodeMetrics) -> None:
        super().__init__(message)
        self.metrics = metrics


def failure(err: Exception) -> dict[str, Any]:
    """The update of a node that failed: the run ends failed, with what the calls cost."""
    update: dict[str, Any] = {"status": "failed", "error": str(err)}
    if isinstance(err, NodeFailedError):
        update["metrics"] = [err.metrics]
    return update


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A node's validated answer and its cost record."""

    value: T
    metrics: NodeMetrics


async def endpoint_of(ctx: Context, node: str) -> Context:
    """``ctx`` on an endpoint (:func:`with_default_endpoint`), a slow first start announced."""
    if ctx.base_url:
        return ctx
    return await announced(with_default_endpoint(ctx), {"event": "endpoint", "node": node})


def gateway_root(base_url: str) -> str:
    """The server root of an OpenAI-compatible base URL (``…/v1`` stripped)."""
    root = base_url.rstrip("/")
    return root.removesuffix("/v1")


async def lease_model(
    http: httpx.AsyncClient, base_url: str, model: str, api_key: str | None = None
) -> float:
    """Ask an edgeswarm gateway to make ``model`` resident; the seconds it took.

    ``api_key`` is sent as the bearer token, as the chat calls send it. A plain vLLM server
    has no management routes (404/405): nothing to wait for there.

    Raises:
        EndpointUnavailableError: the gateway cannot do it now (unreachable, 429, 502, 503).
        EndpointDeadlineError: the gateway's deadline (504) or the client's timeout passed.
        httpx.HTTPStatusError: the gateway refused (401, 400...).
    """
    start = time.monotonic()
    url = f"{gateway_root(base_url)}/models/{quote(model, safe='')}/load"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    try:
        reply = await http.post(url, headers=headers)
    except httpx.TimeoutException as err:
        raise EndpointDeadlineError(f"model {model}: the lease got no answer in time") from err
    except httpx.TransportError as err:
        raise unreachable(model, err) from err
    if reply.status_code in (404, 405):
        return 0.0
    detail = f"the gateway refused to load {model}: {reply.status_code} {reply.text[:200]}"
    failure = status_failure(model, reply.status_code, reply.headers, detail)
    if failure is not None:
        raise failure
    if reply.status_code >= 400:
        raise httpx.HTTPStatusError(
            detail,
            request=reply.request,
            response=reply,
        )
    return time.monotonic() - start


@dataclass(frozen=True)
class ModelClient:
    """The one way the graph and the evaluation reach a model: chat models, leases, liveness.

    Every call of a run (``ask``), the grammar warm-up and the evaluation's plain arms build
    their chat models, lease their model and watch its progress through this one object, on
    one HTTP client that names the caller (``X-Edgeswarm-Caller``, in the gateway's log).
    Made by :func:`model_client`.
    """

    base_url: str
    api_key: str
    seed: int | None
    lease_models: bool
    http: httpx.AsyncClient

    def chat(
        self, model: str, max_tokens: int, temperature: float = 0.0, seed: int | None = None
    ) -> BaseChatModel:
        """A chat model for ``model`` (``seed``: the context's when None)."""
        return chat_model(
            base_url=self.base_url,
            model=model,
            api_key=self.api_key,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=self.seed if seed is None else seed,
            http_client=self.http,
        )

    async def lease(self, model: str) -> float:
        """Make ``model`` resident on an edgeswarm gateway (:func:`lease_model`); 0 when off."""
        if not self.lease_models:
            return 0.0
        return await lease_model(self.http, self.base_url, model, self.api_key)

    def watch(self, idle_s: float, sink: StreamSink | None = None) -> CallWatch:
        """The liveness watch of one call: cut when no token and no progress for ``idle_s``."""
        return CallWatch(
            Liveness(idle_s=idle_s), progress_probe(self.http, self.base_url, self.api_key), sink
        )


@asynccontextmanager
async def model_client(ctx: Context, caller: str) -> AsyncIterator[ModelClient]:
    """A :class:`ModelClient` on ``ctx``'s endpoint for ``caller`` (closed on exit)."""
    headers = {"X-Edgeswarm-Caller": f"edgeswarm/{caller}"}
    async with httpx.AsyncClient(timeout=_CLIENT_TIMEOUT, headers=headers) as http:
        yield ModelClient(ctx.base_url, ctx.api_key, ctx.seed, ctx.lease_models, http)


async def ask(
    ctx: Context,
    role: Role,
    node: str,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    revision: int = 0,
    max_tokens: int | None = None,
    single_attempt: bool = False,
    sampling: tuple[float, int] | None = None,
    invoke: Invoker[T] | None = None,
    sink: StreamSink | None = None,
) -> Answer[T]:
    """Get ``schema`` from the role's model (retry, fallback); raise NodeFailedError.

    The attempts are this function's, not LangGraph's node ``retry_policy`` or ``timeout``:
    those redo or time out a whole node (all of a coder's candidates for one cut off, a
    swap wait taken for a hang); see :mod:`agents.call`.

    ``single_attempt``: one call on the role's model and budget, no retry, no fallback
    (the evaluation's direct baseline, and the coder's sampled candidates).
    ``sampling``: (temperature, seed) instead of the role's. ``invoke``: how to ask
    (default: guided JSON). ``sink``: where the call's streamed text goes, for a caller
    that may cut it (kept when cut).

    No call has a fixed deadline: each streams and is cut only when it stalls (no token and
    no progress on its model for ``ctx.call_idle_s``; :mod:`agents.stream`).
    """
    start = time.monotonic()
    try:
        ctx = await endpoint_of(ctx, node)
    except HostedEndpointError as err:
        metrics = _metrics(node, CallTrace(), start, revision, model=ctx.model_for(role))
        raise NodeFailedError(f"{node}: {err}", replace(metrics, ok=False)) from err
    temperature, seed = sampling or (ctx.temperature_for(role), ctx.seed)
    budget = max_tokens or ctx.tokens_for(role)
    policy = CallPolicy(
        model=ctx.model_for(role),
        fallback_model=None if single_attempt else ctx.fallback_for(role),
        max_tokens=budget,
        resends=ctx.resends,
        backoff_s=ctx.resend_backoff_s,
    )
    if single_attempt:
        first = min(budget or token_budget(schema), policy.max_tokens_cap)
        policy = replace(policy, max_tokens=first, max_tokens_cap=first)
    # The gateway's request log names each call's node (``X-Edgeswarm-Caller``).
    async with model_client(ctx, node) as client:

        def chat(model: str, max_tokens: int) -> BaseChatModel:
            return client.chat(model, max_tokens, temperature, seed)

        async def lease(model: str) -> float:
            leasing = client.lease(model)
            return await announced(leasing, {"event": "model", "node": node, "model": model})

        watch = client.watch(ctx.call_idle_s, sink)
        try:
            with watching(watch):
                outcome = await call_structured(schema, messages, policy, chat, lease, invoke)
        except (AgentCallError, httpx.HTTPError) as err:
            trace = err.trace if isinstance(err, AgentCallError) else CallTrace()
            metrics = _metrics(node, trace, start, revision, model=trace.last_model or policy.model)
            _log.warning(
                "node_failed",
                node=node,
                error=str(err),
                resends=trace.resends,
                seconds=metrics.seconds,
            )
            failed = replace(metrics, ok=False)
            progress(failed)
            raise NodeFailedError(f"{node}: {err}", failed) from err
    metrics = _metrics(node, outcome.trace, start, revision, model=outcome.result.model)
    progress(metrics)
    _log.info(
        "node_done",
        node=node,
        model=metrics.model,
        seconds=metrics.seconds,
        attempts=metrics.attempts,
        resends=outcome.trace.resends,
        prompt_tokens=metrics.prompt_tokens,
    )
    return Answer(outcome.result.value, metrics)


def candidate_end(revision: int) -> CodeEnd:
    """Where a candidate's answer ends.

    A first round's after its own self-checks (:func:`agents.coder.checks_end`: their
    asserts test every candidate, :mod:`agents.peer_tests`), a revision round's where its
    module does (``module_end``: the pool is the first round's).
    """
    return checks_end if revision == 0 else module_end


async def ask_code(
    ctx: Context,
    messages: Sequence[BaseMessage],
    *,
    revision: int,
    sampling: tuple[float, int],
    greedy: bool,
    node: str = "coder",
    plain: bool = False,
    sink: StreamSink | None = None,
    ends_at: CodeEnd | None = None,
    docstrings: bool = True,
) -> Answer[CodeDraft]:
    """One coder candidate: a fenced code block from the coder's model (see agents.coder).

    The greedy candidate gets the whole policy (a larger budget when cut off, the fallback
    model); a sampled one a single attempt: the other candidates stand in for it. ``plain``
    asks as a user does, with no grammar (its first code block is kept; agents.coder).
    A first round's answer ends after its own self-checks (their asserts test every
    candidate: agents.peer_tests), any other where its module does (agents.coder.checks_end,
    module_end); ``ends_at``, where given, says instead (:class:`graphs.coding.RoundTails`).
    Without ``docstrings`` it may not open one (:data:`agents.coder.DOCSTRING_WORDS`).
    """
    if ends_at is None:
        ends_at = candidate_end(revision)
    invoke = ainvoke_plain_code if plain else ainvoke_code
    banned = () if docstrings else DOCSTRING_WORDS
    return await ask(
        ctx,
        "coder",
        node,
        CodeDraft,
        messages,
        revision=revision,
        max_tokens=ctx.tokens_for("coder") or CODE_TOKENS,
        single_attempt=not greedy,
        sampling=sampling,
        invoke=partial(invoke, ends_at=ends_at, bad_words=banned),
        sink=sink,
    )


_CLIENT_TIMEOUT = httpx.Timeout(None, connect=10.0)
"""Model calls and leases have no read timeout: liveness cuts calls (:mod:`agents.stream`),
and a lease waits as long as the gateway's own liveness rules let it (a swap behind a model
that streams is not stuck)."""


def progress_probe(
    http: httpx.AsyncClient, base_url: str, api_key: str | None = None
) -> ModelProbe:
    """How a call watches its model's progress (a :data:`agents.stream.ModelProbe`).

    The gateway's ``/models/{model}/progress``, else the server's own ``/metrics`` (a plain
    vLLM server); None readings where neither says.
    """
    root = gateway_root(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    server = metrics_probe(http, root)
    plain_server = False

    async def probe(model: str) -> float | None:
        nonlocal plain_server
        if not plain_server:
            url = f"{root}/models/{quote(model, safe='')}/progress"
            try:
                reply = await http.get(url, headers=headers, timeout=5.0)
            except httpx.HTTPError:
                return None
            if reply.status_code == httpx.codes.OK:
                try:
                    return float(reply.json()["work"])
                except (ValueError, KeyError, TypeError):
                    return None
            plain_server = reply.status_code in (404, 405)
            if not plain_server:
                return None
        return await server()

    return probe


WAIT_NOTE_S = 1.0
"""A lease or endpoint start still pending after this long is announced on the stream."""


def emit(event: dict[str, Any]) -> None:
    """Put one event on LangGraph's ``custom`` stream (nothing outside a graph run)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:
        return  # called outside a run (the eval's direct arm, a test)
    writer(event)


async def announced(
    work: Coroutine[Any, Any, R], event: dict[str, Any], after_s: float = WAIT_NOTE_S
) -> R:
    """Await ``work``; if it takes longer than ``after_s``, say so on the ``custom`` stream.

    Studio and the CLI then show why a node waits (a model loading, a swap, the embedded
    gateway starting) instead of nothing: ``event`` with ``"phase": "waiting"`` once the
    wait passes ``after_s``, then again with ``"phase": "ready"`` and the seconds it took.
    """
    start = time.monotonic()
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=after_s)
        if done:
            return task.result()
        emit({**event, "phase": "waiting"})
        result = await task
        emit({**event, "phase": "ready", "seconds": round(time.monotonic() - start, 1)})
        return result
    finally:
        task.cancel()


def progress(metrics: NodeMetrics) -> None:
    """Put one finished call on LangGraph's ``custom`` stream (nothing outside a graph run).

    Studio, SDK clients and the CLI see each call as it ends, not when its node does.
    """
    emit({"event": "call", **asdict(metrics)})


def _metrics(
    node: str, trace: CallTrace, start: float, revision: int, *, model: str
) -> NodeMetrics:
    now = time.monotonic()
    return NodeMetrics(
        started=round(time.time() - (now - start), 3),
        node=node,
        model=model,
        prompt_tokens=trace.prompt_tokens,
        completion_tokens=trace.completion_tokens,
        seconds=round(now - start, 3),
        swap_wait_s=round(trace.swap_wait_s, 3),
        attempts=max(1, len(trace.attempts)),
        revision=revision,
        cut="stalled" if trace.stalled else "",
    )


GRAMMARS: tuple[tuple[Role, type[BaseModel] | None], ...] = tuple(
    (spec.name, schema) for spec in ROLES for schema in spec.schemas
)
"""Each role's model and the schemas it answers (graphs.roles; None: the code block)."""


async def warm_up(
    ctx: Context, grammars: Sequence[tuple[Role, type[BaseModel] | None]] = GRAMMARS
) -> dict[str, float]:
    """Have each role's server compile the agents' grammars now: one token per schema.

    vLLM's xgrammar compiles a schema the first time a server sees it (10-40 s on CPU) and
    caches it; a request waits for its compile. These requests send each schema exactly as
    the agents do (one token, so each is cut off, as meant), all at once, so a run's own
    requests find them compiled or compiling. Seconds per request, by role and schema;
    failures are logged and dropped: the run itself still works without them.
    """
    messages = [HumanMessage("warm-up")]
    ctx = await with_default_endpoint(ctx)

    async def one(role: Role, schema: type[BaseModel] | None, client: ModelClient) -> float:
        model = ctx.model_for(role)
        start = time.monotonic()
        llm = client.chat(model, max_tokens=1)
        try:
            if schema is None:
                await ainvoke_code(llm, CodeDraft, messages, model)
            else:
                await ainvoke_structured(llm, schema, messages, model_name=model)
        except StructuredOutputError:
            pass  # cut off at its one token: the grammar is compiled
        except (EndpointUnavailableError, EndpointDeadlineError, httpx.HTTPError, OSError) as err:
            _log.warning("warm_up_failed", model=model, error=str(err))
        return round(time.monotonic() - start, 3)

    async with model_client(ctx, "warm-up") as client:
        seconds = await asyncio.gather(*(one(role, schema, client) for role, schema in grammars))
    done = {
        f"{role}:{schema.__name__ if schema else 'code'}": s
        for (role, schema), s in zip(grammars, seconds, strict=True)
    }
    _log.info("warm_up_done", seconds=done)
    return done
