"""The swarm's roles, declared once.

A role is a model the graph asks for, with its own sampling and budget: each agent runs under
one (the test writer under the researcher's). :data:`ROLES` is the one declaration; the run's
:class:`graphs.context.Context` gets three fields per role from it (``<role>_model``,
``<role>_temperature``, ``<role>_tokens``, in Studio's form too), and everything else that
needs the roles (which models a run may request, the CLI's ``--model``, the grammars compiled
at warm-up, the bench) reads them from here. Adding a role is a :class:`RoleSpec` here, its
agent module in ``agents/`` and the node that calls it (docs/development.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from agents.schemas import AuditReport, ResearchBrief, StageSummary
from agents.test_writer import TestSuite

CODER_DEFAULT = "qwen2.5-coder-0.5b-instruct"
SMALL_DEFAULT = "smollm2-135m-instruct"
# Role defaults were measured with `python bench/role_models.py` (2026-11-29, 2 CPU cores, six
# tasks per role, temperature 0): researcher correct 6/6 on Qwen vs 3/6 on SmolLM; summarizer
# 6/6 vs 3/6; security-auditor verdicts 4/6 on SmolLM (4.5 s median) vs 1/6 on Qwen (12.3 s).

Role = str
"""A declared role's name (one of :data:`ROLES`; :func:`spec_of` refuses any other)."""


@dataclass(frozen=True)
class RoleSpec:
    """One role: what it is called, what it runs on by default, and how it samples."""

    name: str
    """Lower-case, a Python identifier: its Context fields are ``<name>_model`` and so on."""
    model: str
    """The default model (a catalogue name, or any name the endpoint serves)."""
    does: str
    """What the role's agents do, in a few words (the fields' descriptions say it)."""
    schemas: tuple[type[BaseModel] | None, ...] = ()
    """The answers its agents ask for (None: the coder's code block), compiled at warm-up."""
    temperature: float = 0.0
    """The default sampling temperature (0: greedy, replayable)."""
    tokens: int | None = None
    """The default completion budget; None sizes it from the schema (the coder: its own)."""
    fallback: bool = True
    """Whether the run's fallback model answers when this role's model fails."""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"a role's name is a lower-case identifier, not {self.name!r}")


ROLES: tuple[RoleSpec, ...] = (
    RoleSpec(
        "researcher",
        CODER_DEFAULT,
        "the researcher and the test writer",
        schemas=(ResearchBrief, TestSuite),
    ),
    RoleSpec("coder", CODER_DEFAULT, "the coder", schemas=(None,)),
    RoleSpec("auditor", SMALL_DEFAULT, "the security and performance auditors", (AuditReport,)),
    RoleSpec("summarizer", CODER_DEFAULT, "the summarizers", schemas=(StageSummary,)),
)

RENAMED = {
    "research_tokens": "researcher_tokens",
    "audit_tokens": "auditor_tokens",
    "summary_tokens": "summarizer_tokens",
    "node_timeout_s": "call_idle_s",
}
"""Context fields under their earlier names (runs and assistants recorded with them)."""

KINDS = ("model", "temperature", "tokens")
"""The Context fields every role has, as ``<role>_<kind>``."""


def names(roles: tuple[RoleSpec, ...] = ROLES) -> tuple[str, ...]:
    """The declared roles' names, in order."""
    return tuple(spec.name for spec in roles)


def spec_of(role: str, roles: tuple[RoleSpec, ...] = ROLES) -> RoleSpec:
    """The declaration of ``role``; a clear error for a role nobody declared."""
    for spec in roles:
        if spec.name == role:
            return spec
    raise ValueError(f"unknown role {role!r}; the roles are {', '.join(names(roles))}")


def field_name(role: str, kind: str) -> str:
    """A role's Context field: ``field_name("coder", "model") == "coder_model"``."""
    if kind not in KINDS:
        raise ValueError(f"a role field is one of {KINDS}, not {kind!r}")
    return f"{role}_{kind}"


def every_role(model: str, roles: tuple[RoleSpec, ...] = ROLES) -> dict[str, str]:
    """Context overrides that give every role ``model``."""
    return {field_name(spec.name, "model"): model for spec in roles}


def current_names(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with fields under their earlier names (:data:`RENAMED`) under today's.

    Raises:
        ValueError: a field is given under both names.
    """
    out = dict(values)
    for old, new in RENAMED.items():
        if old in out:
            if new in out:
                raise ValueError(f"{old} is the earlier name of {new}: give one of them")
            out[new] = out.pop(old)
    return out
