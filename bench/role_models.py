"""Which embedded model serves each non-coder role better: schema-valid and correct answers.

Usage: python bench/role_models.py --base-url URL_A --model NAME_A --base-url URL_B --model NAME_B
Each role's real prompt (its module in agents/) and schema is sent for a fixed task set, all
requests of one model concurrently (as the swarm does), temperature 0. Scores:
- researcher: the brief validates and names the expected entry point;
- summarizer: the hand-over validates and keeps the entry point's name;
- auditor: the security auditor's verdict is right (revise for eval, shell and pickle on
  inputs; approve for three clean functions).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

import httpx
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from agents.auditor import auditor_messages
from agents.researcher import researcher_messages
from agents.schemas import AuditReport, ResearchBrief, StageSummary
from agents.structured import StructuredOutputError, ainvoke_structured, chat_model, token_budget
from agents.summarizer import summary_messages
from graphs.roles import ROLES

TASKS = [
    (
        "is_palindrome",
        "Write a Python function is_palindrome(text) that returns True when text "
        "reads the same backwards, ignoring case, spaces and punctuation.",
    ),
    ("fizzbuzz", "Write a Python function fizzbuzz(n) that returns the FizzBuzz strings for 1..n."),
    (
        "word_count",
        "Write a Python function word_count(text) that returns a dict mapping each "
        "lowercase word to its number of occurrences.",
    ),
    (
        "second_largest",
        "Write a Python function second_largest(numbers) returning the second "
        "largest distinct value, or None.",
    ),
    (
        "celsius_to_fahrenheit",
        "Write a Python function celsius_to_fahrenheit(c) that converts a temperature.",
    ),
    (
        "merge_intervals",
        "Write a Python function merge_intervals(intervals) that merges "
        "overlapping [start, end] pairs.",
    ),
]
AUDIT_CASES = [
    ("def calc(expr):\n    return eval(expr)\n", "revise"),
    ("import os\n\ndef ping(host):\n    return os.system('ping -c 1 ' + host)\n", "revise"),
    ("import pickle\n\ndef load(blob):\n    return pickle.loads(blob)\n", "revise"),
    ("def add(a, b):\n    return a + b\n", "approve"),
    ("def is_even(n):\n    return n % 2 == 0\n", "approve"),
    ("def total(prices):\n    return round(sum(prices), 2)\n", "approve"),
]

Check = Callable[[Any], bool]


async def one(
    http: httpx.AsyncClient,
    url: str,
    model: str,
    schema: type[BaseModel],
    messages: list[BaseMessage],
    check: Check,
) -> dict[str, Any]:
    """One structured call: was it valid, was it right, how long did it take."""
    llm = chat_model(base_url=url, model=model, max_tokens=token_budget(schema), http_client=http)
    start = time.monotonic()
    try:
        result: Any = await ainvoke_structured(llm, schema, messages, model_name=model)
        ok, valid = check(result.value), True
    except StructuredOutputError:
        ok, valid = False, False
    return {"valid": valid, "correct": ok, "seconds": time.monotonic() - start}


def _names(brief: ResearchBrief, name: str) -> bool:
    return name in brief.entry_point


def _keeps(summary: StageSummary, name: str) -> bool:
    return name in summary.summary + " ".join(summary.key_points)


def _verdict_is(report: AuditReport, want: str) -> bool:
    return report.verdict == want


def jobs(
    url: str, model: str, http: httpx.AsyncClient
) -> dict[str, list[Coroutine[Any, Any, dict[str, Any]]]]:
    """Every role's calls for one model."""
    research = [
        one(
            http,
            url,
            model,
            ResearchBrief,
            researcher_messages(task),
            partial(_names, name=name),
        )
        for name, task in TASKS
    ]
    summaries = [
        one(
            http,
            url,
            model,
            StageSummary,
            summary_messages("the coder", task),
            partial(_keeps, name=name),
        )
        for name, task in TASKS
    ]
    audits = [
        one(
            http,
            url,
            model,
            AuditReport,
            auditor_messages("security", code, "A small calculator."),
            partial(_verdict_is, want=want),
        )
        for code, want in AUDIT_CASES
    ]
    return {"researcher": research, "summarizer": summaries, "auditor": audits}


async def measure(url: str, model: str) -> dict[str, Any]:
    """All roles' scores for one model, its calls sent concurrently."""
    async with httpx.AsyncClient(timeout=600) as http:
        table = jobs(url, model, http)
        start = time.monotonic()
        results = {role: await asyncio.gather(*calls) for role, calls in table.items()}
        wall = time.monotonic() - start
    out: dict[str, Any] = {"model": model, "wall_s": round(wall, 1)}
    # every declared role is named: one without cases here says so (the coder is measured by
    # `make eval` and bench/sampling.py)
    for spec in ROLES:
        if spec.name not in table and spec.name != "coder":
            out[spec.name] = "not measured: add its cases to jobs() in bench/role_models.py"
    for role, rows in results.items():
        out[role] = {
            "valid": sum(r["valid"] for r in rows) / len(rows),
            "correct": sum(r["correct"] for r in rows) / len(rows),
            "median_s": round(statistics.median(r["seconds"] for r in rows), 1),
            "n": len(rows),
        }
    return out


async def main() -> None:
    """Measure each (base URL, model) pair given on the command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", action="append", required=True)
    parser.add_argument("--model", action="append", required=True)
    args = parser.parse_args()
    for url, model in zip(args.base_url, args.model, strict=True):
        print(json.dumps(await measure(url, model)), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
