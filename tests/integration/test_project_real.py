"""A project task with the real model: the swarm, which sees the project, solves what a plain
call, which cannot, fails.

The task (``bench/tasks-project``) queries a SQLite database whose table and column names
nobody can guess; its statement gives one example call. Graded as ``edgeswarm eval`` grades:
the hidden tests in the sandbox, among the project's files.
"""

from __future__ import annotations

from pathlib import Path

from app.evaluate import load_tasks, plain_arm, swarm_arm
from graphs.context import Context
from graphs.roles import every_role
from runtime.vllm import VLLMServer

ROOT = Path(__file__).resolve().parents[2]
TASK = "21_units_shipped"


async def test_the_swarm_solves_a_database_task_a_plain_call_cannot(
    coder_server: VLLMServer,
) -> None:
    (task,) = load_tasks(ROOT / "bench" / "tasks-project", only=[TASK])
    assert task.database is not None and task.kind == "database"
    name = coder_server.spec.served_name
    context = Context(
        base_url=coder_server.base_url, **every_role(name), fallback_model=None, max_revisions=1
    )
    plain = await plain_arm(task, context, 30.0)
    assert not plain.solved, plain.code  # it cannot know the tables
    swarm = await swarm_arm(task, context, 30.0)
    assert swarm.solved, (swarm.outcome, swarm.grading, swarm.code)
    assert "ord_ln" in swarm.code and "qty_shipped" in swarm.code
