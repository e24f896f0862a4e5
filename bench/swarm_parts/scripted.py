"""Parts 6 and 7: scripted fake model.

- :func:`orchestration_overhead`: milliseconds per node of graph + lease hook (+ gateway)
  with an instant fake model.
- :func:`context_pruning`: prompt tokens per node over 0-3 revisions with and without the
  summarization nodes (scripted fake answers, real prompts, the model's real tokenizer).

The fake server and its scripted answers are here; the prefix-caching part records its
prompts with them too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agents import test_writer as writer_agent
from agents.schemas import AuditReport, ResearchBrief
from bench.harness import PortFor, Workspace, gateway_in_front
from bench.load import median
from bench.parts import SMALL
from bench.swarm_parts.common import SwarmRun, one_model_context, one_run
from graphs.llm import GRAMMARS
from runtime.process import ManagedProcess
from tests.fakes import FakeOpenAI, fake_command


@contextmanager
def fake_server(work: Workspace, port_for: PortFor) -> Iterator[FakeOpenAI]:
    """The scripted fake OpenAI-compatible server, answering at once; stopped on exit."""
    port = port_for()
    process = ManagedProcess(
        f"bench-fake:{port}",
        fake_command(port, "fake-model", scripted=True),
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=work.file(f"logs/fake-openai-{port}.log"),
        start_timeout_s=60,
        die_with_parent=True,
    )
    with process:
        yield FakeOpenAI(process, port, "fake-model", timeout_s=30)


def _answer(schema: type[BaseModel], value: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"schema": schema.__name__, "content": json.dumps(value), **extra}


FAKE_BRIEF = {
    "summary": "Write add(a, b) that returns the sum of two numbers.",
    "kind": "function",
    "entry_point": "add",
    "requirements": ["Return a + b.", "Accept ints and floats."],
}
_GOOD = ["def add(a, b):", "    return a + b"]
_BAD = [
    "def add(a, b):",
    "    # adds the two numbers together, checking nothing else",
    "    return a - b",
]


FAKE_SUITE = {
    "checks": [{"call": "add(2, 3)", "expected": "5"}, {"call": "add(-1, 1)", "expected": "0"}]
}


def _code(lines: list[str]) -> dict[str, Any]:
    """A coder candidate: one fenced block, asked for under a grammar (no JSON schema)."""
    return {"schema": "", "content": "```python\n" + "\n".join(lines) + "\n```"}


def _audit(kind: str) -> dict[str, Any]:
    return _answer(
        AuditReport, {"verdict": "approve", "findings": []}, contains=f"the {kind} auditor"
    )


def swarm_script(failing_rounds: int) -> list[dict[str, Any]]:
    """Answers for one run whose code fails its checks ``failing_rounds`` times, then passes.

    One candidate a round (see :func:`one_model_context`); the task must state an example
    the bad code fails, so that the failure has support and a revision follows.
    """
    steps = [_answer(ResearchBrief, FAKE_BRIEF), _answer(writer_agent.TestSuite, FAKE_SUITE)]
    for index in range(failing_rounds + 1):
        steps.append(_code(_BAD if index < failing_rounds else _GOOD))
    return [*steps, _audit("security"), _audit("performance")]


@dataclass(frozen=True)
class OverheadSizes:
    """Knobs of the orchestration-overhead part."""

    runs: int = 20


def orchestration_overhead(
    sizes: OverheadSizes, work: Workspace, port_for: PortFor
) -> dict[str, Any]:
    """Milliseconds per node with an instant model: direct to it, and through a gateway."""
    with (
        fake_server(work, port_for) as fake,
        gateway_in_front("fake-model", fake.base_url, work, "overhead", port_for) as gw,
    ):
        targets = {"direct": (fake.base_url, False), "gateway": (gw.api_base, True)}
        arms = _overhead_arms(fake, targets, sizes.runs)
    direct, through = arms["direct"], arms["gateway"]
    return {
        "sizes": asdict(sizes),
        "arms": arms,
        # The sandboxed test run varies by tens of ms between runs: compare without it.
        "gateway_ms_per_call": round(
            (through["ms_per_run_without_sandbox"] - direct["ms_per_run_without_sandbox"])
            / max(1, direct["calls_per_run"]),
            3,
        ),
    }


def _overhead_arms(
    fake: FakeOpenAI, targets: dict[str, tuple[str, bool]], runs: int
) -> dict[str, dict[str, Any]]:
    """``runs`` scripted runs per arm, the arms alternating run by run (drift cancels)."""
    contexts = {
        arm: one_model_context(url, "fake-model", lease_models=lease, sandbox_timeout_s=20.0)
        for arm, (url, lease) in targets.items()
    }
    seen: dict[str, list[SwarmRun]] = {arm: [] for arm in contexts}
    for index in range(runs + 1):  # the first round warms up: imports, connections, sandbox
        order = list(contexts) if index % 2 == 0 else list(reversed(contexts))
        for arm in order:
            fake.reset()
            fake.script(*swarm_script(0))
            run = asyncio.run(one_run("add two numbers", contexts[arm]))
            if run.state.status != "done":
                raise RuntimeError(f"overhead run failed: {run.state.error}")
            if index:
                seen[arm].append(run)
    return {arm: _overhead_summary(done) for arm, done in seen.items()}


def _overhead_summary(runs: list[SwarmRun]) -> dict[str, Any]:
    walls = [run.wall_s for run in runs]
    sandbox = [
        run.state.report.tests.duration_s if run.state.report and run.state.report.tests else 0.0
        for run in runs
    ]
    per_run = median(walls) * 1000
    sandbox_ms = median(sandbox) * 1000
    rest_ms = median([wall - tests for wall, tests in zip(walls, sandbox, strict=True)]) * 1000
    nodes, calls = runs[-1].nodes, len(runs[-1].state.metrics)
    return {
        "ms_per_run_median": round(per_run, 2),
        "ms_per_run_without_sandbox": round(rest_ms, 2),
        "nodes_per_run": nodes,
        "calls_per_run": calls,
        "ms_per_node": round(per_run / nodes, 2),
        "sandbox_ms_median": round(sandbox_ms, 2),
        "ms_per_node_without_sandbox": round((per_run - sandbox_ms) / nodes, 2),
        "runs_ms": [round(w * 1000, 2) for w in walls],
    }


@dataclass(frozen=True)
class PruningSizes:
    """Knobs of the context-pruning part."""

    revisions: int = 3


def context_pruning(sizes: PruningSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Prompt tokens per node and revision, with the summarizers (pruned) and without."""
    count = token_counter(work.models_dir / SMALL)
    modes: dict[str, Any] = {}
    with fake_server(work, port_for) as fake:
        for mode, pruning in (("pruned", True), ("unpruned", False)):
            fake.reset()
            fake.script(*swarm_script(sizes.revisions))
            context = one_model_context(
                fake.base_url,
                "fake-model",
                lease_models=False,
                max_revisions=sizes.revisions,
                revision_repair=True,  # the one prompt that carries the earlier attempts
                context_pruning=pruning,
            )
            run = asyncio.run(one_run(_PRUNING_TASK, context))
            report = run.state.report
            if report is None or report.revisions != sizes.revisions:
                raise RuntimeError(f"{mode}: expected {sizes.revisions} revisions, got {report}")
            modes[mode] = node_prompt_tokens(fake.requests(), count)
    return {"sizes": asdict(sizes), "tokenizer": SMALL, "modes": modes, "growth": _growth(modes)}


_PRUNING_TASK = (
    "Write a Python function add(a, b) that returns the sum of two numbers; it must accept "
    "ints and floats and must not print anything. add(2, 3) == 5."
)


def token_counter(model_dir: Path) -> Any:
    """Counts tokens with the model's own tokenizer (the ``tokenizers`` library)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    return count


def _node_of(body: dict[str, Any]) -> str:
    if "grammar" in (body.get("structured_outputs") or {}) or not body.get("response_format"):
        return "coder"  # a guided code block, or the plain prompt's free answer
    schema = str(((body.get("response_format") or {}).get("json_schema") or {}).get("name", ""))
    text = json.dumps(body.get("messages", []))
    if schema == "AuditReport":
        return "security_auditor" if "the security auditor" in text else "performance_auditor"
    if schema == writer_agent.TestSuite.__name__:
        return "test_writer"  # under the researcher's role
    # any other schema: the role that asks for it (ResearchBrief: researcher; a new role's)
    roles = {s.__name__: role for role, s in GRAMMARS if s is not None}
    return roles.get(schema, schema)


def node_prompt_tokens(bodies: list[dict[str, Any]], count: Any) -> list[dict[str, Any]]:
    """(node, revision, prompt tokens) for each recorded request, in order."""
    rows, revision, coders = [], 0, 0
    for body in bodies:
        node = _node_of(body)
        if node == "coder":
            revision, coders = coders, coders + 1
        if node == "summarizer":
            node = "summarize_brief" if coders == 0 else "gather_evidence"
        tokens = sum(count(str(m.get("content", ""))) for m in body.get("messages", []))
        rows.append({"node": node, "revision": revision, "prompt_tokens": tokens})
    return rows


def _growth(modes: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Coder prompt tokens at revision 0 and at the last one, per mode, and the total."""
    out: dict[str, Any] = {}
    for mode, rows in modes.items():
        coder = [r["prompt_tokens"] for r in rows if r["node"] == "coder"]
        out[mode] = {
            "coder_first": coder[0] if coder else None,
            "coder_last": coder[-1] if coder else None,
            "total_prompt_tokens": sum(r["prompt_tokens"] for r in rows),
            "max_prompt_tokens": max((r["prompt_tokens"] for r in rows), default=0),
        }
    return out
