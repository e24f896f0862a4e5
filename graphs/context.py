"""Per-run settings of the swarm graph, passed as ``context`` and read as ``runtime.context``."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Context:
    """What one run of the graph talks to and how; explicit per run, never read from env."""

    base_url: str = field(
        default="http://127.0.0.1:8000/v1",
        metadata={"description": "OpenAI-compatible endpoint (vLLM or an edgeswarm gateway)."},
    )
    api_key: str = field(default="EMPTY", metadata={"description": "Bearer token for base_url."})
    researcher_model: str = field(
        default="qwen2.5-coder-0.5b-instruct",
        metadata={"description": "Model name the researcher requests."},
    )
    max_tokens: int | None = field(
        default=None,
        metadata={"description": "Completion budget per answer; None sizes it from the schema."},
    )
    temperature: float = field(default=0.0, metadata={"description": "Sampling temperature."})
    seed: int = field(default=0, metadata={"description": "Sampling seed, for replayable runs."})
    request_timeout_s: float = field(
        default=180.0, metadata={"description": "Deadline for one LLM request, in seconds."}
    )
