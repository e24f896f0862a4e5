"""bench.sampling: plain answers graded by hidden tests, counted per temperature."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agents.coder import DOCSTRING_WORDS, PLAIN_STOP
from app.evaluate import load_tasks
from bench.report import save_results
from bench.sampling import PROMPTS, asked, ceiling, main, measure, summarize
from tests.fakes import FakeOpenAI

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


async def test_without_docstrings_each_prompt_is_asked_again_with_the_ban(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.script(*[answer(ADD, "add")] * 2, *[answer(WRONG_SUB, "sub")] * 2)
    tasks = load_tasks(task_set(tmp_path / "tasks"))
    rows = await measure(
        fake_openai.base_url, "m", tasks, [0.0], samples=1, without_docstrings=True
    )
    assert sorted((r["task"], r["prompt"], r["solved"]) for r in rows) == [
        ("01_add", "plain", [True]),
        ("01_add", "plain-nodoc", [True]),
        ("02_sub", "plain", [False]),
        ("02_sub", "plain-nodoc", [False]),
    ]
    bodies = fake_openai.requests()
    banned = [b for b in bodies if "bad_words" in b]
    assert len(banned) == 2 and all(b["bad_words"] == list(DOCSTRING_WORDS) for b in banned)
    # the same prompt either way; each answer's tokens are counted
    asked_with = sorted(json.dumps(b["messages"]) for b in bodies if "bad_words" in b)
    assert asked_with == sorted(json.dumps(b["messages"]) for b in bodies if "bad_words" not in b)
    assert all(len(r["tokens"]) == 1 for r in rows)
    assert {line["prompt"] for line in summarize(rows)} == {"plain", "plain-nodoc"}


def project_task_set(root: Path) -> Path:
    folder = root / "01_price_label"
    (folder / "workspace" / "shop").mkdir(parents=True)
    (folder / "workspace" / "shop" / "__init__.py").write_text("", "utf-8")
    (folder / "workspace" / "shop" / "money.py").write_text(
        'def cents_text(cents: int) -> str:\n    """Cents as the shop prints them."""\n'
        '    return f"{cents // 100},{cents % 100:02d} EUR"\n',
        "utf-8",
    )
    (folder / "task.txt").write_text(
        "Write `price_label(name, cents)` that returns the name, a colon and the price "
        "as the shop's money helpers print it.\n",
        "utf-8",
    )
    (folder / "test_hidden.py").write_text(
        "from solution import price_label\n\n\ndef test_it() -> None:\n"
        '    assert price_label("tea", 250) == "tea: 2,50 EUR"\n',
        "utf-8",
    )
    return root


WRONG_LABEL = "def price_label(name, cents):\n    return name\n"
RIGHT_BODY = '    return f"{name}: {cents_text(cents)}"\n'


async def test_a_project_task_is_asked_after_its_snippets_and_graded_among_its_files(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """The stub is begun with the snippets' imports, and the project's module is importable
    when the hidden tests run, as the swarm's candidates and the eval have them."""
    fake_openai.script(
        {"schema": "", "contains": '"role": "assistant"', "content": RIGHT_BODY + "```"},
        {"schema": "", "contains": "price_label", "content": f"```python\n{WRONG_LABEL}```"},
    )
    tasks = load_tasks(project_task_set(tmp_path / "tasks"))
    rows = await measure(fake_openai.base_url, "m", tasks, [0.0], samples=1, prompts=PROMPTS)
    assert sorted((r["prompt"], r["solved"]) for r in rows) == [
        ("plain", [False]),
        ("stub", [True]),
    ]
    bodies = {
        "stub" if b.get("continue_final_message") else "plain": b for b in fake_openai.requests()
    }
    assert all("def cents_text" in b["messages"][0]["content"] for b in bodies.values())
    begun = bodies["stub"]["messages"][-1]
    assert begun["role"] == "assistant" and "from shop.money import cents_text" in begun["content"]
    assert bodies["stub"]["add_generation_prompt"] is False
    assert ceiling(rows)[0] == {"samples": 0, "tasks": 1, "solved": 1.0}


def test_a_stub_is_not_asked_without_an_entry_point(tmp_path: Path) -> None:
    folder = tmp_path / "tasks" / "01_vowels"
    folder.mkdir(parents=True)
    (folder / "task.txt").write_text("Count the vowels in a text.\n", "utf-8")
    (folder / "test_hidden.py").write_text("def test_it() -> None:\n    pass\n", "utf-8")
    [task] = load_tasks(tmp_path / "tasks")
    asks = asked(task, PROMPTS)
    assert asks["stub"] is None and asks["plain"] is not None


def test_summary_counts_the_mean_and_any_answer_per_temperature() -> None:
    rows = [
        {"task": "a", "temperature": 0.4, "solved": [True, False, False, True]},
        {"task": "b", "temperature": 0.4, "solved": [False, False, False, True]},
        {"task": "a", "temperature": 0.0, "solved": [True], "tokens": [30]},
        {"task": "b", "temperature": 0.0, "solved": [False], "tokens": [50]},
    ]
    assert summarize(rows) == [
        {
            "prompt": "plain",
            "temperature": 0.0,
            "tasks": 2,
            "answers_per_task": 1,
            "mean_solved": 1.0,
            "any_solved": 1,
            "mean_tokens": 40.0,
        },
        {
            "prompt": "plain",
            "temperature": 0.4,
            "tasks": 2,
            "answers_per_task": 4,
            "mean_solved": 0.75,
            "any_solved": 2,
            "mean_tokens": None,  # (rows recorded before tokens were)
        },
    ]


def test_ceiling_is_the_greedy_answer_or_any_of_k_samples_expected_over_draws() -> None:
    rows = [
        {"task": "a", "temperature": 0.0, "solved": [True]},  # the greedy answer solves it
        {"task": "a", "temperature": 0.4, "solved": [False, False]},
        {"task": "a", "temperature": 0.8, "solved": [False, False]},
        {"task": "b", "temperature": 0.0, "solved": [False]},
        {"task": "b", "temperature": 0.4, "solved": [True, False]},  # one of four right
        {"task": "b", "temperature": 0.8, "solved": [False, False]},
        {"task": "c", "temperature": 0.0, "solved": [False]},  # none right: never counted
        {"task": "c", "temperature": 0.4, "solved": [False, False, False, False]},
    ]
    assert ceiling(rows) == [
        {"samples": 0, "tasks": 3, "solved": 1.0},
        {"samples": 1, "tasks": 3, "solved": 1.25},  # 1/4 of draws hold b's right sample
        {"samples": 2, "tasks": 3, "solved": 1.5},  # 1 - C(3,2)/C(4,2)
        {"samples": 3, "tasks": 3, "solved": 1.75},
        {"samples": 4, "tasks": 3, "solved": 2.0},
    ]
    assert ceiling([{"task": "a", "temperature": 0.0, "solved": [True]}]) == [
        {"samples": 0, "tasks": 1, "solved": 1.0}
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
    text = out.read_text("utf-8")
    assert code == 0 and '"any_solved": 1' in text and '"ceiling"' in text


def test_the_commands_concurrency_and_prompts_reach_the_measurement(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, object] = {}

    async def fake_measure(*args: object, **kwargs: object) -> list[dict[str, object]]:
        seen.update(kwargs)
        return []

    monkeypatch.setattr("bench.sampling.measure", fake_measure)
    tasks = str(task_set(tmp_path / "tasks"))
    argv = ["--tasks", tasks, "--base-url", "http://x", "--concurrency", "3", "--prompts", "stub"]
    assert main(argv) == 0
    assert seen == {"concurrency": 3, "prompts": ["stub"], "without_docstrings": False}
    assert main([*argv, "--without-docstrings"]) == 0 and seen["without_docstrings"] is True


def test_a_module_run_records_its_own_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["sampling.py", "--split", "held-out"])
    results = save_results(None, "sampling", None)
    assert results["command"] == "python -m bench.sampling --split held-out"
    assert save_results(None, "sampling", ["--samples", "2"])["command"].endswith("--samples 2")
