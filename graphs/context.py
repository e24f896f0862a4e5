"""Per-run settings of the swarm graph, passed as ``context`` and read as ``runtime.context``.

Everything a run depends on is here, explicit, so that a run can be replayed exactly
(temperature 0 and a fixed seed by default). Nodes never read the environment.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, TypeVar, get_args

from langgraph.runtime import Runtime

from agents.prompts import PromptLayout
from graphs.roles import (
    CODER_DEFAULT,
    ROLES,
    SMALL_DEFAULT,
    Role,
    RoleSpec,
    current_names,
    field_name,
    spec_of,
)

__all__ = ["CODER_DEFAULT", "SMALL_DEFAULT", "Context", "Role", "context_of", "with_roles"]


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


_C = TypeVar("_C", bound=type)

_AFTER = {"model": "warm_up", "tokens": "peer_tests", "temperature": "sandbox_timeout_s"}
"""Where each kind of role field goes in the class (Studio's form keeps this order)."""
_TYPES = {"model": "str", "temperature": "float", "tokens": "int | None"}


def _role_field(kind: str, spec: RoleSpec) -> Any:
    if kind == "model":
        return field(default=spec.model, metadata=_doc(f"Model of {spec.does}."))
    if kind == "temperature":
        return field(default=spec.temperature, metadata=_doc(f"Sampling of {spec.does}."))
    return field(
        default=spec.tokens,
        metadata=_doc(f"Completion budget of {spec.does}; None sizes it from the schema."),
    )


def with_roles(roles: tuple[RoleSpec, ...]) -> Callable[[_C], _C]:
    """Give a context class (before ``@dataclass``) three fields per role of ``roles``.

    ``<role>_model``, ``<role>_tokens`` and ``<role>_temperature``, each after its kind's
    anchor field (:data:`_AFTER`) when the class has it, else at the end; the class's
    ``roles`` then lists them after any it inherits. A subclass of :class:`Context` that adds
    roles is declared ``@dataclass(kw_only=True, init=False)``, so that it keeps Context's
    ``__init__`` (earlier field names, a clear error for unknown ones).
    """

    def add(cls: _C) -> _C:
        own: dict[str, Any] = dict(inspect.get_annotations(cls))
        added = {kind: [(field_name(spec.name, kind), spec) for spec in roles] for kind in _TYPES}
        ordered: dict[str, Any] = {}
        for name in [*own, ""]:
            if name:
                ordered[name] = own[name]
            for kind, anchor in _AFTER.items():
                if anchor == name or (not name and anchor not in own):
                    ordered.update({n: _TYPES[kind] for n, _ in added[kind]})
        for kind, named in added.items():
            for name, spec in named:
                setattr(cls, name, _role_field(kind, spec))
        cls.__annotations__ = ordered
        cls.roles = (*getattr(cls, "roles", ()), *roles)  # type: ignore[attr-defined]
        return cls

    return add


@dataclass(kw_only=True)
@with_roles(ROLES)
class Context:
    """What one run of the graph talks to and how.

    Each declared role (graphs/roles.py) adds ``<role>_model``, ``<role>_tokens`` and
    ``<role>_temperature``; fields under an earlier name (``research_tokens``) are taken as
    today's.
    """

    roles: ClassVar[tuple[RoleSpec, ...]]
    """The roles this context has fields for (graphs.roles.ROLES, set by :func:`with_roles`)."""

    base_url: str = field(
        default="",
        metadata=_doc(
            "OpenAI-compatible endpoint: an edgeswarm gateway or a vLLM server. Empty: the "
            "host's default, EDGESWARM_BASE_URL if set, else a model `edgeswarm serve` "
            "serves, else the embedded gateway, started on first use and shared by the "
            "process's runs (graphs/endpoints.py)."
        ),
    )
    api_key: str = field(default="EMPTY", metadata=_doc("Bearer token for base_url."))
    lease_models: bool = field(
        default=True,
        metadata=_doc("Ask the gateway to make each model resident before a call."),
    )
    warm_up: bool = field(
        default=False,
        metadata=_doc(
            "Have the servers compile every agent's grammar when a run starts (one token "
            "each, in the background), not on the run's path; set for servers edgeswarm starts."
        ),
    )
    fallback_model: str | None = field(
        default=SMALL_DEFAULT, metadata=_doc("Model tried when a role's model fails.")
    )
    max_revisions: int = field(
        default=1,
        metadata=_doc(
            "Revision rounds at most; one runs only when checks with support fail (or the "
            "candidates differ under checks nothing supports). With 2, in a whole make eval, "
            "28 tasks ran both rounds, and the second found a right candidate on no task "
            "where the first two rounds had none."
        ),
    )
    candidates: int = field(
        default=4,
        metadata=_doc(
            "Candidate solutions written at once in the first round: one greedy, the rest "
            "sampled (vLLM batches them); the checks' run chooses among them."
        ),
    )
    revision_candidates: int = field(
        default=3,
        metadata=_doc(
            "Candidates written in each revision round: fresh samples of the plain and stub "
            "prompts (with revision_repair, the first is the repair)."
        ),
    )
    revision_repair: bool = field(
        default=False,
        metadata=_doc(
            "Whether a revision round with failing checks opens with the coder's repair: "
            "the greedy answer to its own prompt with the best candidate's code and what its "
            "failing calls returned. Off: every candidate of the round is a fresh sample. "
            "Over 19 make evals of the 87 context-free tasks (2026-12-06/07) a repair was "
            "right in 1-2 of 30-33 rounds and never where no other candidate was; its prompt "
            "is the round's longest."
        ),
    )
    search_rounds: bool = field(
        default=False,
        metadata=_doc(
            "Whether a revision round also runs as a search: no failing check any evidence "
            "supports (nothing to repair from), but the best candidate fails checks and the "
            "candidates differ, so fresh samples may find a better one. Off: the run ends "
            "with the best so far. Replayed over 7 make evals of the 87 context-free tasks "
            "(2026-12-07) a search round found a right candidate in 12 of 151 and ran on an "
            "already right one in 66; over 11 of the project set it gained 7 and lost 9 of "
            "355. About 20 of the 47 revision rounds a run were searches."
        ),
    )
    sample_temperature: float = field(
        default=0.4,
        metadata=_doc(
            "Temperature of the sampled candidates (distinct seeds). Measured on the dev "
            "split (45 tasks, plain prompt): a sample at 0.4 solves 25.2 on average, as many "
            "as the greedy answer (24), at 0.8 only 21; four of either reach 28."
        ),
    )
    wide_temperature: float = field(
        default=0.8,
        metadata=_doc(
            "Temperature of one fresh sample in three in a revision round (the first, fourth, "
            "...): the first round's candidates all failed, so the search goes wider. "
            "Measured on the dev split (45 tasks): one task (transpose) was solved only by "
            "samples at 0.8, and four answers mixing 0.4 and 0.8 reach 28.8 tasks against "
            "28.0 for four at 0.4."
        ),
    )
    sample_docstrings: bool = field(
        default=False,
        metadata=_doc(
            "Whether a first round's sampled candidates may write docstrings (and "
            "triple-quoted strings). Off: vLLM's bad_words keep them from opening one "
            "(agents.coder.DOCSTRING_WORDS), unless the task asks for a docstring; the greedy "
            "answers (the plain call's own among them) write theirs. Measured on the dev split "
            "(63 tasks, 3 samples each at 0.4, 2026-12-07): without one a sample took 48-53% "
            "of the tokens and was right 5 times fewer of 189 (plain prompt) and 3 (stub), "
            "each within one standard error of the paired difference (6.4, 5.7)."
        ),
    )
    revision_docstrings: bool = field(
        default=False,
        metadata=_doc(
            "Whether a revision round's candidates (a repair among them) may write "
            "docstrings (and triple-quoted strings). Off: vLLM's bad_words keep them from "
            "opening one (agents.coder.DOCSTRING_WORDS), unless the task asks for a docstring. "
            "A revision round rarely finds a right candidate (6 of 622 rounds on the 87 "
            "context-free tasks), so it is made cheap: the round's code tokens fell by a third "
            "(make eval, 2026-12-07)."
        ),
    )
    straggler_factor: float | None = field(
        default=1.0,
        metadata=_doc(
            "Once the greedy candidate is written and this many times its time more has "
            "passed, a sampled candidate still writing is cut if what it streamed repeats "
            "itself (a loop: its last 120 characters occur earlier); one that makes progress "
            "writes on. A cut one keeps a whole code block it streamed. None never cuts."
        ),
    )
    probes: bool = field(
        default=True,
        metadata=_doc(
            "Run every candidate on inputs varied from the checks' (no expected values) and "
            "break ties between candidates the checks cannot tell apart by how much each "
            "does what the others do (agents.probes)."
        ),
    )
    peer_tests: bool = field(
        default=True,
        metadata=_doc(
            "Run every candidate on the asserts the first round's candidates wrote beside "
            "their code and break ties the checks leave by how many it passes, each weighed "
            "by the share of candidates passing it (agents.peer_tests); they never approve "
            "or block."
        ),
    )
    handover_chars: int = field(
        default=900, metadata=_doc("Size cap of a summarizer hand-over, in characters.")
    )
    project_chars: int = field(
        default=3500,
        metadata=_doc(
            "Size cap, in characters, of the project's verbatim snippets (its helpers, config, "
            "data lines, database schema with sample rows, ranked against the task) that open "
            "every candidate's and the test writer's prompt in a run with a workspace or "
            "database."
        ),
    )
    model_lookups: bool = field(
        default=True,
        metadata=_doc(
            "In a run with a workspace or database, the researcher's model also plans up to "
            "three lookups (search, read, SQL) on top of the project map; their results reach "
            "the coder's prompt through the summarizer."
        ),
    )
    parallel_brief: bool = field(
        default=False,
        metadata=_doc(
            "Whether the researcher asks the model for a brief when it runs beside the coder "
            "(no lookups to wait for, the statement names its function or class). Off: the "
            "brief would feed only the report's 'task as understood', and it took 9.4% of the "
            "swarm's completion tokens on the 87 context-free tasks (make eval, 2026-12-07); "
            "the researcher reads the statement's entry point and checks without a call."
        ),
    )
    context_pruning: bool = field(
        default=True,
        metadata=_doc(
            "Bound every hand-over with the summarization nodes (keep it on). False is a "
            "benchmark baseline only, not for normal use: no summarizer calls, the raw brief, "
            "notes and test output are handed over, and the revising coder gets every earlier "
            "attempt (the last 8) with its unclipped problems, so prompts grow each revision."
        ),
    )
    prompt_layout: PromptLayout = field(
        default="stable_first",
        metadata=_doc(
            "stable_first (keep it): role and rules first, the run's task, brief and code last, "
            "so requests share a prefix for vLLM's prefix cache. variable_first is a benchmark "
            "baseline only: the variable text first, the rules after it."
        ),
    )
    call_idle_s: float = field(
        default=120.0,
        metadata=_doc(
            "A model call is cut only when it got no token and its model made no progress "
            "(no work on its server, no swap under way) for this long; then the fallback "
            "runs. A call that streams is never cut, however slow the machine. Earlier name: "
            "node_timeout_s (a fixed deadline, which cut calls that were still streaming)."
        ),
    )
    run_budget_s: float | None = field(
        default=None,
        metadata=_doc(
            "Wall-clock budget of the whole run (None: none). Once it is spent no new "
            "revision round starts, and the coder's candidates still writing are cut at it, "
            "each keeping what it streamed (a whole code block still competes): the run "
            "finishes with the best candidate so far."
        ),
    )
    resends: int = field(
        default=4,
        metadata=_doc(
            "Resends of a request the endpoint could not take (unreachable, 502, 503), with "
            "backoff; a full queue (429) is waited out as its Retry-After says. Then the "
            "fallback runs."
        ),
    )
    resend_backoff_s: float = field(
        default=1.0, metadata=_doc("Wait before the first resend; doubles each time, up to 8 s.")
    )
    sandbox_timeout_s: float = field(default=20.0, metadata=_doc("Deadline of a test run."))
    seed: int = field(default=0, metadata=_doc("Sampling seed, for replayable runs."))

    def __init__(self, **values: Any) -> None:
        """Every field from ``values`` or its default; then :meth:`__post_init__` checks them.

        Raises:
            TypeError: a name that is no field (nor an earlier name of one).
            ValueError: a value no run can use, naming its field.
        """
        values = current_names(values)
        known = fields(self)
        unknown = sorted(set(values) - {f.name for f in known})
        if unknown:
            raise TypeError(f"Context has no field {', '.join(unknown)}")
        for f in known:
            if f.name in values:
                value = values[f.name]
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            else:
                value = f.default
            setattr(self, f.name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        """Refuse settings no run can use, naming the field (Studio and the API pass dicts)."""
        problems = [f"{name} {why}" for name, why in _problems(self)]
        if problems:
            raise ValueError("invalid run context: " + "; ".join(problems))

    def _of(self, role: Role, kind: str) -> Any:
        return getattr(self, field_name(spec_of(role, self.roles).name, kind))

    def model_for(self, role: Role) -> str:
        """The model a role requests."""
        model: str = self._of(role, "model")
        return model

    def temperature_for(self, role: Role) -> float:
        """The sampling temperature of a role."""
        temperature: float = self._of(role, "temperature")
        return temperature

    def tokens_for(self, role: Role) -> int | None:
        """The completion budget of a role (None: sized from the schema)."""
        tokens: int | None = self._of(role, "tokens")
        return tokens

    def budget_left(self, started_at: float, now: float | None = None) -> float | None:
        """Seconds left of the run's budget (None: no budget; never below 0)."""
        if self.run_budget_s is None or not started_at:
            return None
        return max(0.0, started_at + self.run_budget_s - (time.time() if now is None else now))

    def fallback_for(self, role: Role) -> str | None:
        """The model that answers when the role's fails (None: none does)."""
        return self.fallback_model if spec_of(role, self.roles).fallback else None


_POSITIVE = ("call_idle_s", "sandbox_timeout_s", "handover_chars", "project_chars")
_OPTIONAL_POSITIVE = ("run_budget_s",)
_NON_NEGATIVE = ("max_revisions", "resends", "resend_backoff_s")
_WHOLE = ("max_revisions", "resends")
_COUNTS = ("candidates", "revision_candidates")
_TEMPERATURES = ("sample_temperature", "wide_temperature")


def _role_fields(ctx: Context, kind: str) -> tuple[str, ...]:
    return tuple(field_name(spec.name, kind) for spec in ctx.roles)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bad_model(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be a model name"
    if any(ord(char) < 32 for char in value):
        return f"must be a model name, not {value!r}"
    return None


def _problems(ctx: Context) -> Iterator[tuple[str, str]]:
    """(field, what is wrong) for each unusable value of ``ctx``."""
    for name in _role_fields(ctx, "model"):
        why = _bad_model(getattr(ctx, name))
        if why:
            yield name, why
    if ctx.fallback_model is not None and (why := _bad_model(ctx.fallback_model)):
        yield "fallback_model", why + " or null"
    yield from _number_problems(ctx)
    yield from _optional_problems(ctx)
    if ctx.prompt_layout not in get_args(PromptLayout):
        choices = ", ".join(get_args(PromptLayout))
        yield "prompt_layout", f"must be one of {choices}, not {ctx.prompt_layout!r}"
    url = ctx.base_url
    if not isinstance(url, str) or (url and not url.startswith(("http://", "https://"))):
        yield "base_url", f"must be an http(s) URL or empty (the default), not {url!r}"


def _optional_problems(ctx: Context) -> Iterator[tuple[str, str]]:
    for name in _OPTIONAL_POSITIVE:
        value = getattr(ctx, name)
        if value is not None and (not _number(value) or value <= 0):
            yield name, f"must be a positive number or null, not {value!r}"


def _number_problems(ctx: Context) -> Iterator[tuple[str, str]]:
    temperatures = (*_role_fields(ctx, "temperature"), *_TEMPERATURES)
    values = {name: getattr(ctx, name) for name in (*_POSITIVE, *_NON_NEGATIVE, *temperatures)}
    for name in _POSITIVE:
        if not _number(values[name]) or values[name] <= 0:
            yield name, f"must be a positive number, not {values[name]!r}"
    for name in _NON_NEGATIVE:
        kind = "a whole number" if name in _WHOLE else "a number"
        whole = name not in _WHOLE or isinstance(values[name], int)
        if not _number(values[name]) or values[name] < 0 or not whole:
            yield name, f"must be {kind}, zero or more, not {values[name]!r}"
    for name in temperatures:
        if not _number(values[name]) or not 0 <= values[name] <= 2:
            yield name, f"must be between 0 and 2, not {values[name]!r}"
    yield from _count_problems(ctx)
    factor = ctx.straggler_factor
    if factor is not None and (not _number(factor) or factor < 0):
        yield "straggler_factor", f"must be a number, zero or more, or null, not {factor!r}"
    for name in _role_fields(ctx, "tokens"):
        tokens = getattr(ctx, name)
        if tokens is not None and (not isinstance(tokens, int) or tokens < 1):
            yield name, f"must be a positive whole number of tokens or null, not {tokens!r}"


def _count_problems(ctx: Context) -> Iterator[tuple[str, str]]:
    for name in _COUNTS:
        count = getattr(ctx, name)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 16:
            yield name, f"must be a whole number from 1 to 16, not {count!r}"


def context_of(runtime: Runtime[Context]) -> Context:
    """A node's run settings: the run's context, else the defaults."""
    return runtime.context or Context()
