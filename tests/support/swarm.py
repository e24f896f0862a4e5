"""Whole swarm runs through a gateway whose backends are the fake vLLM server with canned
answers for the agents' schemas (``--answers``): every run is approved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphs.context import Context
from graphs.state import InputState, OutputState
from graphs.swarm import graph
from tests.support.gateway import fake_model
from tests.support.scripts import GOOD_CODE, audit, brief, code, suite, summary

CANNED: dict[str, Any] = {
    step["schema"]: json.loads(step["content"])
    for step in (brief(), summary(), suite(), audit("security"))
}
CANNED["code"] = code(GOOD_CODE)["content"]
"""One answer per agent schema: a run through these backends is approved."""


def swarm_models(
    tmp_path: Path, tag: str, names: dict[str, dict[str, Any]], **common: Any
) -> list[dict[str, Any]]:
    """Fake vLLM models answering every agent schema; ``names`` maps a model to its options."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(CANNED))
    return [fake_model(n, tag, answers=answers, **{**common, **o}) for n, o in names.items()]


async def swarm_run(context: Context) -> OutputState:
    """One run of the graph (task: add two numbers) with ``context``; its output."""
    out = await graph.ainvoke(InputState(task="add two numbers"), context=context, version="v2")
    state: OutputState = out.value
    return state
