"""Part 5: guided decoding cost.

:func:`guided_cost`: tokens/s of the agents' schema-guided answers vs unconstrained generation
of the same length, same prompts.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel

from agents import auditor as auditor_agent
from agents import researcher as researcher_agent
from agents import summarizer as summarizer_agent
from agents import test_writer as writer_agent
from agents.schemas import AuditReport, ResearchBrief, StageSummary
from agents.structured import token_budget
from bench.harness import PortFor, Workspace, sized_server
from bench.load import burst, client, median, ratio
from bench.parts import SMALL, check


@dataclass(frozen=True)
class GuidedSizes:
    """Knobs of the guided-decoding part."""

    concurrency: int = 4
    reps: int = 1
    max_tokens_cap: int = 64
    max_model_len: int = 4096
    kvcache_gib: int = 2


_TASK = "Write a Python function word_count(text) that returns a dict of word -> count."
_CODE = """\
def word_count(text):
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    return counts
"""
GUIDED_SAMPLES: tuple[tuple[type[BaseModel], str, str], ...] = (
    (
        ResearchBrief,
        researcher_agent.SYSTEM,
        researcher_agent.TASK.format(notes="", task=_TASK),
    ),
    (
        StageSummary,
        summarizer_agent.SYSTEM,
        summarizer_agent.INPUT.format(audience="the coder", material=_TASK),
    ),
    (writer_agent.TestSuite, writer_agent.SYSTEM, f"Task:\n{_TASK}\n"),
    (
        AuditReport,
        auditor_agent.SYSTEM["security"],
        auditor_agent.INPUT.format(briefing=_TASK, code=_CODE),
    ),
)


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` the agents send (``json_schema``, strict)."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": schema.model_json_schema(),
            "strict": True,
        },
    }


def guided_cost(sizes: GuidedSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Tokens/s with each agent schema vs unconstrained answers of the same length."""
    with sized_server(SMALL, sizes, work, port_for) as server:
        records = asyncio.run(_guided_runs(sizes, server.base_url))
    per_schema: dict[str, Any] = {}
    for schema, *_ in GUIDED_SAMPLES:
        name = schema.__name__
        rate = {
            arm: median(
                [r["tokens_per_s"] for r in records if r["schema"] == name and r["arm"] == arm]
            )
            for arm in ("guided", "free")
        }
        per_schema[name] = {
            "guided_tokens_per_s": round(rate["guided"], 3),
            "free_tokens_per_s": round(rate["free"], 3),
            "ratio_guided_over_free": ratio(rate["guided"], rate["free"], digits=4),
        }
    ratios = [
        v["ratio_guided_over_free"] for v in per_schema.values() if v["ratio_guided_over_free"]
    ]
    return {
        "sizes": asdict(sizes),
        "records": records,
        "schemas": per_schema,
        "ratio_median": round(median(ratios), 4) if ratios else None,
    }


async def _guided_runs(sizes: GuidedSizes, api_base: str) -> list[dict[str, Any]]:
    records = []
    async with client() as http:
        for schema, system, user in GUIDED_SAMPLES:  # compile each grammar, warm the cache
            warm = await burst(http, api_base, [_guided_body(schema, system, user, 8)])
            check(warm, "warm-up")
        for rep in range(1, sizes.reps + 1):
            for schema, system, user in GUIDED_SAMPLES:
                budget = min(token_budget(schema), sizes.max_tokens_cap)
                guided = _guided_body(schema, system, user, budget)
                done = await burst(http, api_base, [guided] * sizes.concurrency)
                check(done, "guided")
                length = max(1, int(median([o.completion_tokens for o in done.outcomes])))
                free = {k: v for k, v in guided.items() if k != "response_format"}
                free.update(max_tokens=length, ignore_eos=True)
                plain = await burst(http, api_base, [free] * sizes.concurrency)
                check(plain, "free")
                for arm, result in (("guided", done), ("free", plain)):
                    records.append(
                        {
                            "schema": schema.__name__,
                            "arm": arm,
                            "rep": rep,
                            "completion_tokens": result.tokens,
                            "wall_s": round(result.wall_s, 4),
                            "tokens_per_s": round(result.tokens_per_s, 3),
                        }
                    )
    return records


def _guided_body(schema: type[BaseModel], system: str, user: str, budget: int) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return {
        "model": SMALL,
        "messages": messages,
        "temperature": 0,
        "max_tokens": budget,
        "response_format": response_format(schema),
    }
