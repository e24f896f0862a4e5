"""bench.sampling: plain answers graded by hidden tests, counted per temperature."""

from __future__ import annotations

from pathlib import Path

from agents.coder import PLAIN_STOP
from bench.sampling import main, measure, summarize
from graphs.evaluate import load_tasks
from tests.conftest import FakeOpenAI

ADD = "def add(a, b):\n    return a + b\n"
WRONG_SUB = "def sub(a, b):\n    return a + b\n"


def task_set(root: Path) -> Path:
    for name, statement, test in (
        ("01_add", "Write `add(a, b)` that returns a + b.", "assert add(2, 3) == 5"),
        ("02_sub", "Write `sub(a, b)` that returns a - b.", "assert sub(5, 3) == 2"),
    ):
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "task.txt").write_text(statement + "\n", "utf-8")
        entry = name[3:]
        (folder / "test_hidden.py").write_text(
            f"from solution import {entry}\n\n\ndef test_it() -> None:\n    {test}\n", "utf-8"
        )
    return root


def answer(code: str, name: str) -> dict[str, str]:
    return {"schema": "", "contains": f"`{name}(", "content": f"```python\n{code}```"}


async def test_each_answer_is_graded_and_asked_as_the_plain_arm_asks(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.script(*[answer(ADD, "add")] * 3, *[answer(WRONG_SUB, "sub")] * 3)
    tasks = load_tasks(task_set(tmp_path / "tasks"))
    rows = await measure(fake_openai.base_url, "m", tasks, [0.0, 0.5], samples=2)
    solved = {(row["task"], row["temperature"]): row["solved"] for row in rows}
    assert solved == {
        ("01_add", 0.0): [True],
        ("01_add", 0.5): [True, True],
        ("02_sub", 0.0): [False],
        ("02_sub", 0.5): [False, False],
    }
    bodies = fake_openai.requests()
    assert len(bodies) == 6 and all(b["stop"] == list(PLAIN_STOP) for b in bodies)
    assert all(len(b["messages"]) == 1 for b in bodies)  # the task as one user turn
    # only the greedy answer is seeded (vLLM's CPU build fails a seeded sampled request)
    assert sorted(("seed" in b, b["temperature"]) for b in bodies) == [
        *[(False, 0.5)] * 4,
        *[(True, 0.0)] * 2,
    ]


def test_summary_counts_the_mean_and_any_answer_per_temperature() -> None:
    rows = [
        {"task": "a", "temperature": 0.4, "solved": [True, False, False, True]},
        {"task": "b", "temperature": 0.4, "solved": [False, False, False, True]},
        {"task": "a", "temperature": 0.0, "solved": [True]},
        {"task": "b", "temperature": 0.0, "solved": [False]},
    ]
    assert summarize(rows) == [
        {
            "temperature": 0.0,
            "tasks": 2,
            "answers_per_task": 1,
            "mean_solved": 1.0,
            "any_solved": 1,
        },
        {
            "temperature": 0.4,
            "tasks": 2,
            "answers_per_task": 4,
            "mean_solved": 0.75,
            "any_solved": 2,
        },
    ]


def test_the_command_writes_its_results(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.script(answer(ADD, "add"), answer(WRONG_SUB, "sub"))
    out = tmp_path / "sampling.json"
    code = main(
        [
            "--tasks", str(task_set(tmp_path / "tasks")),
            "--temperatures", "0",
            "--base-url", fake_openai.base_url,
            "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0 and '"any_solved": 1' in out.read_text("utf-8")
