"""Where a run sends its requests: the settings' endpoint, or a gateway started for it.

The CLI picks the endpoint for each run (:func:`swarm_endpoint`) and passes it in the run's
context. A run whose context names no endpoint (``base_url`` empty: what LangGraph Studio
sends when only a task is typed, or ``graph.ainvoke(..., context=Context())``) uses the host
process's default instead (:func:`with_default_endpoint`): ``EDGESWARM_BASE_URL`` when it is
set, else a model that ``edgeswarm serve`` serves, else the embedded gateway, which the
process starts on first use, shares with all its later runs and stops when it exits (a
SIGKILLed process's gateway stops by itself: its lease ends with the process, see
:mod:`runtime.gateway.leases`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from graphs.context import Context
from graphs.roles import field_name
from runtime.endpoint import Endpoint, check_reachable, find_running, list_models
from runtime.gateway.embedded import embedded_gateway
from runtime.logs import get_logger
from runtime.settings import Settings, load_settings

_log = get_logger("endpoints")


def served_models(endpoint: Endpoint, timeout_s: float = 10.0) -> list[str]:
    """Model names the endpoint lists at ``/models``; [] when it does not answer that."""
    return list_models(endpoint.base_url, api_key=endpoint.api_key, timeout_s=timeout_s)


def context_models(context: Context) -> list[str]:
    """Every model a run with this context may request (roles and fallback), in order."""
    names = [context.model_for(spec.name) for spec in context.roles]
    if context.fallback_model is not None:
        names.append(context.fallback_model)
    return list(dict.fromkeys(names))


def models_needed(overrides: Mapping[str, Any]) -> list[str]:
    """Every model a run with these context overrides may request (roles and fallback)."""
    return context_models(Context(**overrides))


@contextlib.contextmanager
def swarm_endpoint(settings: Settings, models: list[str]) -> Iterator[Endpoint]:
    """Where a run sends its requests, started for the run when needed.

    ``base_url`` from the settings wins; else a model that ``edgeswarm serve`` serves; else
    the embedded gateway for ``models`` (a running one is reused), shared with the other runs
    that use it and stopped after the last of them.
    """
    if settings.base_url is not None:
        base_url = str(settings.base_url).rstrip("/")
        check_reachable(base_url, api_key=settings.api_key)
        yield Endpoint(base_url, settings.request_model_name, settings.api_key)
        return
    served = find_running(settings, settings.model)
    if served is not None:
        yield served
        return
    budget = int(settings.gateway_budget_gib * 2**30) if settings.gateway_budget_gib else None
    with embedded_gateway(settings, models, budget_bytes=budget) as base_url:
        yield Endpoint(base_url, models[0], settings.api_key, owned=True)


def on_endpoint(context: Context, endpoint: Endpoint, served: list[str]) -> Context:
    """``context`` sent to ``endpoint``: roles mapped to the models it serves.

    A role whose model the endpoint does not serve gets the endpoint's own model (a plain
    vLLM server serves one); a fallback that is not served is dropped, with a warning.
    """
    context = replace(context, base_url=endpoint.base_url, api_key=endpoint.api_key)
    if not served:
        return context
    changes: dict[str, Any] = {}
    for spec in context.roles:
        model = context.model_for(spec.name)
        if model not in served:
            using = endpoint.model if endpoint.model in served else served[0]
            changes[field_name(spec.name, "model")] = using
            _log.warning("role_model_not_served", role=spec.name, model=model, using=using)
    if context.fallback_model is not None and context.fallback_model not in served:
        changes["fallback_model"] = None
        _log.warning("fallback_not_served", model=context.fallback_model)
    return replace(context, **changes)


def context_for(endpoint: Endpoint, served: list[str], **overrides: Any) -> Context:
    """The run's context: defaults, the caller's overrides, roles mapped to served models."""
    # Servers edgeswarm starts are new: their grammars compile while the run starts.
    overrides.setdefault("warm_up", endpoint.owned)
    return on_endpoint(Context(**overrides), endpoint, served)


@dataclass(frozen=True)
class HostedEndpoint:
    """The endpoint this process uses for runs that name none, and what it serves."""

    endpoint: Endpoint
    served: tuple[str, ...]
    models: tuple[str, ...]
    """The models it was started for (an embedded gateway serves exactly these)."""


class HostedEndpointError(RuntimeError):
    """The host's default endpoint cannot serve a run."""


_hosted: HostedEndpoint | None = None
_hosted_lock = threading.Lock()
_hosted_stack = contextlib.ExitStack()


def hosted_endpoint(models: list[str]) -> HostedEndpoint:
    """This process's default endpoint, started on first use and kept until the process exits.

    Blocking (a gateway start waits for its health): async callers use
    :func:`with_default_endpoint`.

    Raises:
        HostedEndpointError: it does not serve ``models`` (an embedded gateway serves the
            models of the first run that needed it).
    """
    global _hosted
    with _hosted_lock:
        if _hosted is None:
            settings = load_settings()
            endpoint = _hosted_stack.enter_context(swarm_endpoint(settings, models))
            if endpoint.owned:
                atexit.register(_hosted_stack.close)
                sys.stderr.write(
                    f"edgeswarm: started the embedded gateway at {endpoint.base_url}\n"
                )
            served = tuple(served_models(endpoint))
            _hosted = HostedEndpoint(endpoint, served, tuple(models))
            _log.info("hosted_endpoint", url=endpoint.base_url, served=list(served))
        hosted = _hosted
    missing = [name for name in models if name not in hosted.models]
    if hosted.endpoint.owned and missing:
        raise HostedEndpointError(
            f"this process's embedded gateway ({hosted.endpoint.base_url}) serves "
            f"{', '.join(hosted.models)}, the models of its first run; this run also asks for "
            f"{', '.join(missing)}. Restart the server to serve them, or set "
            "EDGESWARM_BASE_URL (or the run's base_url) to a gateway that does."
        )
    return hosted


async def with_default_endpoint(context: Context) -> Context:
    """``context`` itself when it names an endpoint; else on the host's default endpoint.

    Its ``api_key`` is kept unless it is the default ``EMPTY`` (then the settings' key).

    Raises:
        HostedEndpointError: there is none (what stopped it, and what to do, in the message).
    """
    if context.base_url:
        return context
    try:
        hosted = await asyncio.to_thread(hosted_endpoint, context_models(context))
    except HostedEndpointError:
        raise
    except (RuntimeError, OSError, ValueError) as err:
        # not pulled, device busy, EDGESWARM_BASE_URL not answering, bad settings...
        raise HostedEndpointError(f"no endpoint for this run: {err}") from err
    resolved = on_endpoint(context, hosted.endpoint, list(hosted.served))
    if context.api_key != "EMPTY":
        resolved = replace(resolved, api_key=context.api_key)
    return resolved


def close_hosted_endpoint() -> None:
    """Stop what :func:`hosted_endpoint` started (also run at exit); the next use starts anew."""
    global _hosted
    with _hosted_lock:
        _hosted_stack.close()
        _hosted = None
