"""Per-run settings of the swarm graph, passed as ``context`` and read as ``runtime.context``.

Everything a run depends on is here, explicit, so that a run can be replayed exactly
(temperature 0 and a fixed seed by default). Nodes never read the environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agents.prompts import PromptLayout

Role = Literal["researcher", "coder", "auditor", "summarizer"]

CODER_DEFAULT = "qwen2.5-coder-0.5b-instruct"
SMALL_DEFAULT = "smollm2-135m-instruct"
# Role defaults were measured with `python bench/role_models.py` (2026-11-29, 2 CPU cores, six
# tasks per role, temperature 0): researcher correct 6/6 on Qwen vs 3/6 on SmolLM; summarizer
# 6/6 vs 3/6; security-auditor verdicts 4/6 on SmolLM (4.5 s median) vs 1/6 on Qwen (12.3 s).


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


@dataclass(kw_only=True)
class Context:
    """What one run of the graph talks to and how."""

    base_url: str = field(
        default="http://127.0.0.1:8000/v1",
        metadata=_doc("OpenAI-compatible endpoint: an edgeswarm gateway or a vLLM server."),
    )
    api_key: str = field(default="EMPTY", metadata=_doc("Bearer token for base_url."))
    lease_models: bool = field(
        default=True,
        metadata=_doc("Ask the gateway to make each model resident before a call."),
    )
    researcher_model: str = field(default=CODER_DEFAULT, metadata=_doc("Researcher's model."))
    coder_model: str = field(default=CODER_DEFAULT, metadata=_doc("Coder's model."))
    auditor_model: str = field(default=SMALL_DEFAULT, metadata=_doc("Auditors' model."))
    summarizer_model: str = field(default=CODER_DEFAULT, metadata=_doc("Summarizer's model."))
    fallback_model: str | None = field(
        default=SMALL_DEFAULT, metadata=_doc("Model tried when a role's model fails.")
    )
    max_revisions: int = field(default=2, metadata=_doc("Coder revision rounds at most."))
    research_tokens: int | None = field(
        default=None, metadata=_doc("Researcher's completion budget; None sizes it from schema.")
    )
    coder_tokens: int | None = field(default=None, metadata=_doc("Coder's completion budget."))
    audit_tokens: int | None = field(default=None, metadata=_doc("Each auditor's budget."))
    summary_tokens: int | None = field(default=None, metadata=_doc("Summarizer's budget."))
    handover_chars: int = field(
        default=900, metadata=_doc("Size cap of a summarizer hand-over, in characters.")
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
    node_timeout_s: float = field(
        default=240.0, metadata=_doc("Deadline of one LLM attempt; then the fallback runs.")
    )
    resends: int = field(
        default=4,
        metadata=_doc(
            "Resends of a request the endpoint could not take (unreachable, 502, 503), with "
            "backoff, within node_timeout_s; a full queue (429) is waited out as its "
            "Retry-After says. Then the fallback runs."
        ),
    )
    resend_backoff_s: float = field(
        default=1.0, metadata=_doc("Wait before the first resend; doubles each time, up to 8 s.")
    )
    sandbox_timeout_s: float = field(default=20.0, metadata=_doc("Deadline of a test run."))
    researcher_temperature: float = field(default=0.0, metadata=_doc("Researcher sampling."))
    coder_temperature: float = field(default=0.0, metadata=_doc("Coder sampling."))
    auditor_temperature: float = field(default=0.0, metadata=_doc("Auditors' sampling."))
    summarizer_temperature: float = field(default=0.0, metadata=_doc("Summarizer sampling."))
    seed: int = field(default=0, metadata=_doc("Sampling seed, for replayable runs."))

    def model_for(self, role: Role) -> str:
        """The model a role requests."""
        return {
            "researcher": self.researcher_model,
            "coder": self.coder_model,
            "auditor": self.auditor_model,
            "summarizer": self.summarizer_model,
        }[role]

    def temperature_for(self, role: Role) -> float:
        """The sampling temperature of a role."""
        return {
            "researcher": self.researcher_temperature,
            "coder": self.coder_temperature,
            "auditor": self.auditor_temperature,
            "summarizer": self.summarizer_temperature,
        }[role]

    def tokens_for(self, role: Role) -> int | None:
        """The completion budget of a role (None: sized from the schema)."""
        return {
            "researcher": self.research_tokens,
            "coder": self.coder_tokens,
            "auditor": self.audit_tokens,
            "summarizer": self.summary_tokens,
        }[role]
