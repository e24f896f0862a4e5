"""``edgeswarm eval``: task loading, sandboxed grading, both arms against the scripted fake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import coder
from app import evaluate
from app.cli import EXIT_OK, EXIT_USAGE, main
from graphs.context import Context
from graphs.llm import GRAMMARS
from graphs.roles import every_role
from tests.fakes import FakeOpenAI
from tests.support.scripts import BAD_CODE, GOOD_CODE, brief, code, round_steps
from tests.support.shop_project import table_db
from tests.support.tasks import HIDDEN, task_set
from tools.project_map import build_map


def fake_context(fake: FakeOpenAI, **overrides: object) -> Context:
    return Context(
        base_url=fake.base_url,
        fallback_model=None,
        lease_models=False,
        candidates=1,
        **every_role("fake-model"),
        **overrides,
    )


def test_load_tasks_reads_the_set_in_order_and_filters(tmp_path: Path) -> None:
    root = task_set(tmp_path / "set", ("02_b", "01_a", "03_c"))
    assert [t.name for t in evaluate.load_tasks(root)] == ["01_a", "02_b", "03_c"]
    assert [t.name for t in evaluate.load_tasks(root, limit=2)] == ["01_a", "02_b"]
    assert [t.name for t in evaluate.load_tasks(root, only=["03_c"])] == ["03_c"]
    first = evaluate.load_tasks(root)[0]
    assert first.statement.startswith("Write add(a, b)") and "def test_small" in first.hidden_tests


def test_load_tasks_orders_by_number_past_99(tmp_path: Path) -> None:
    root = task_set(tmp_path / "set", ("100_d", "10_b", "9_a", "99_c", "notes"))
    names = [t.name for t in evaluate.load_tasks(root)]
    assert names == ["9_a", "10_b", "99_c", "100_d", "notes"]
    assert [t.name for t in evaluate.load_tasks(root, limit=3)] == ["9_a", "10_b", "99_c"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda root: None, "is not a directory"),
        (lambda root: root.mkdir(), "holds no task directories"),
        (lambda root: (root / "01_x").mkdir(parents=True), "needs both task.txt"),
    ],
)
def test_load_tasks_says_what_is_wrong(tmp_path: Path, setup: object, message: str) -> None:
    root = tmp_path / "set"
    setup(root)  # type: ignore[operator]
    with pytest.raises(evaluate.TaskSetError, match=message):
        evaluate.load_tasks(root)


def test_load_tasks_rejects_bad_filters_and_empty_statements(tmp_path: Path) -> None:
    root = task_set(tmp_path / "set")
    with pytest.raises(evaluate.TaskSetError, match="unknown tasks"):
        evaluate.load_tasks(root, only=["nope"])
    with pytest.raises(evaluate.TaskSetError, match="at least 1"):
        evaluate.load_tasks(root, limit=0)
    (root / "01_add" / "task.txt").write_text("   \n")
    with pytest.raises(evaluate.TaskSetError, match="the task is empty"):
        evaluate.load_tasks(root)


def test_the_shipped_task_set_loads() -> None:
    tasks = evaluate.load_tasks(evaluate.DEFAULT_TASKS)
    assert len(tasks) >= 25
    assert all("from solution import" in t.hidden_tests for t in tasks)


def test_grade_runs_the_hidden_tests_in_the_sandbox() -> None:
    assert evaluate.grade(GOOD_CODE, HIDDEN) == evaluate.Grade(True, 2, 0, "")
    wrong = evaluate.grade(BAD_CODE, HIDDEN)
    assert (wrong.solved, wrong.passed, wrong.failed) == (False, 0, 2)
    assert "FAIL" in wrong.detail
    assert evaluate.grade("", HIDDEN).detail == "no solution.py"
    hostile = "import os\nos.system('echo pwned > /work/../../tmp/x')\n" + GOOD_CODE
    assert evaluate.grade(hostile, HIDDEN).solved  # it runs, but only inside the sandbox


async def test_the_candidates_are_graded_once_the_arm_is_done_each_code_once(
    tmp_path: Path,
) -> None:
    tasks = evaluate.load_tasks(task_set(tmp_path / "set"))
    first, second = tasks
    other = GOOD_CODE.replace("a + b", "b + a")

    def swarm(final: str, solved: bool, *codes: str) -> evaluate.TaskResult:
        rows = [{"code": c, "revision": 0} for c in codes]
        result = evaluate.ArmResult(solved=solved, code=final, outcome="approved", attempts=rows)
        return evaluate.TaskResult(task="", arms={"swarm": result})

    results = {
        first.name: swarm(GOOD_CODE, True, GOOD_CODE, BAD_CODE, BAD_CODE, other),
        # a kept result of a stopped eval, graded already in part
        second.name: swarm(BAD_CODE, False, BAD_CODE, GOOD_CODE),
    }
    results[second.name].arms["swarm"].attempts[1]["hidden_solved"] = "kept"
    graded = await evaluate.grade_attempts(tasks, results, 30.0)
    rows = results[first.name].arms["swarm"].attempts
    assert [row["hidden_solved"] for row in rows] == [True, False, False, True]
    # the final solution's grade reused; BAD_CODE once, `other` once
    assert graded == 2
    assert [r["hidden_solved"] for r in results[second.name].arms["swarm"].attempts] == [
        False,
        "kept",
    ]
    assert await evaluate.grade_attempts(tasks, results, 30.0) == 0  # nothing left to grade


async def test_both_arms_are_graded_and_summarized(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    tasks = evaluate.load_tasks(task_set(tmp_path / "set"))
    # swarm arm: each run approves GOOD_CODE, except that 02's first coder answer is cut off
    # inside its code block (a retry with a larger budget follows: not valid on the first try)
    # (the tasks name add: the researcher asks no brief)
    fake_openai.script(*round_steps(GOOD_CODE))
    cut = {"schema": "", "content": "```python\ndef add(a, b):\n", "finish_reason": "length"}
    fake_openai.script(cut, *round_steps(GOOD_CODE))
    # direct arm: 01 right, 02 wrong
    fake_openai.script(code(GOOD_CODE, contains="(01_add)"), code(BAD_CODE, contains="(02_add"))
    seen: list[tuple[str, str, bool]] = []
    results = await evaluate.evaluate(
        tasks,
        fake_context(fake_openai, max_revisions=0),
        evaluate.EvalOptions(arms=("swarm", "direct"), concurrency=1),
        progress=lambda arm, name, result: seen.append((arm, name, result.solved)),
    )
    summary_ = results["summary"]
    assert summary_["tasks"] == 2
    assert summary_["swarm"]["solved"] == 2 and summary_["swarm"]["solved_share"] == 1.0
    assert summary_["direct"]["solved"] == 1 and summary_["direct"]["solved_share"] == 0.5
    assert summary_["swarm"]["calls"] == 8  # 4 calls per run
    assert summary_["swarm"]["first_try_valid_share"] == round(7 / 8, 3)
    # the cut-off answer was code: every guided JSON answer was valid on the first try
    assert summary_["swarm"]["json_first_try_valid_share"] == 1.0
    assert summary_["direct"]["first_try_valid_share"] == 1.0
    # each run's one candidate was right: what selection could reach, beside what it chose
    assert summary_["swarm"]["some_candidate_solved"] == 2
    assert summary_["direct"]["some_candidate_solved"] is None  # one call: no candidates
    # the fake shows no vLLM metrics: the hit rate is not measured, and says so
    assert summary_["prefix_cache"] == {"swarm": None, "direct": None, "all": None}
    assert seen == [
        ("swarm", "01_add", True),
        ("swarm", "02_add_again", True),
        ("direct", "01_add", True),
        ("direct", "02_add_again", False),
    ]
    row = results["tasks"][1]
    assert row["task"] == "02_add_again"
    assert row["direct"]["hidden_failed"] == 2 and "FAIL" in row["direct"]["grading"]
    assert row["swarm"]["outcome"] == "approved"
    # the direct arm is one call: the coder's system prompt and the task verbatim, no brief
    direct = [b for b in fake_openai.requests() if "(02_add_again)" in json.dumps(b)][-1]
    assert direct["messages"][0]["content"] == coder.SYSTEM
    assert direct["messages"][1]["content"].startswith("Write add(a, b)")
    assert "grammar" in direct["structured_outputs"]


async def test_the_plain_arm_asks_as_a_user_would_and_grades_the_code_block(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    tasks = evaluate.load_tasks(task_set(tmp_path / "set", ("01_add", "02_add_again")))
    self_check = "assert add(2, 2) == 5  # the model's own, wrong, self-check\nprint(add(1, 2))\n"
    answer = f"Here it is:\n```python\n{GOOD_CODE}{self_check}```\nIt adds a and b, and then"
    fake_openai.script(
        {"content": answer, "contains": "(01_add)"},
        {"content": answer[:-30], "contains": "(02_add", "finish_reason": "length"},
    )
    results = await evaluate.evaluate(
        tasks, fake_context(fake_openai), evaluate.EvalOptions(arms=("plain",))
    )
    plain = results["summary"]["plain"]
    # a cut-off answer still holds its whole code block, and top-level calls are dropped:
    # a user would keep the function
    assert plain["solved"] == 2 and plain["first_try_valid_share"] is None
    assert plain["outcomes"] == {"length": 1, "stop": 1}
    for body in fake_openai.requests():
        [message] = body["messages"]  # the task verbatim, and nothing of ours but the ask
        assert message["role"] == "user" and message["content"].endswith(coder.PLAIN_ASK)
        assert body["temperature"] == 0.0
        assert "structured_outputs" not in body and "response_format" not in body
        # the swarm's own plain call (its greedy plain candidate): stopped where a user stops
        assert body["stop"] == list(coder.PLAIN_STOP)
        assert "bad_words" not in body  # docstrings and all, as a user's call writes them


async def test_an_eval_on_new_servers_warms_them_up_once_before_the_first_task(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    tasks = evaluate.load_tasks(task_set(tmp_path / "set", ("01_add", "02_add_again")))
    answer = f"```python\n{GOOD_CODE}```"
    fake_openai.script(
        {"content": answer, "contains": "(01_add)"}, {"content": answer, "contains": "(02_add"}
    )
    context = fake_context(fake_openai, warm_up=True)
    results = await evaluate.evaluate(tasks, context, evaluate.EvalOptions(arms=("plain",)))
    assert results["summary"]["plain"]["solved"] == 2
    grammars = len(GRAMMARS)  # every role's schemas
    assert len(results["summary"]["warm_up_s"]) == grammars
    bodies = fake_openai.requests()
    assert [b["max_completion_tokens"] for b in bodies[:grammars]] == [1] * grammars  # first
    assert all(b.get("max_completion_tokens") != 1 for b in bodies[grammars:])


async def test_a_direct_answer_that_is_cut_off_counts_as_invalid_and_unsolved(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    tasks = evaluate.load_tasks(task_set(tmp_path / "set", ("01_add",)))
    fake_openai.script(code(GOOD_CODE, finish_reason="length"), code(GOOD_CODE))
    results = await evaluate.evaluate(
        tasks, fake_context(fake_openai), evaluate.EvalOptions(arms=("direct",))
    )
    direct = results["summary"]["direct"]
    assert (direct["solved"], direct["first_try_valid_share"]) == (0, 0.0)
    assert direct["outcomes"] == {"invalid": 1}
    assert len(fake_openai.requests()) == 1  # no retry, no fallback


def test_eval_command_prints_the_summary_and_writes_json(
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))
    root = task_set(tmp_path / "set", ("01_add",))
    fake_openai.script(brief(), *round_steps(GOOD_CODE), *[code(GOOD_CODE)] * 3, code(BAD_CODE))
    out = tmp_path / "out" / "eval.json"
    args = [
        "eval",
        "--tasks",
        str(root),
        "--base-url",
        fake_openai.base_url,
        "--arms",
        "swarm,direct",
    ]
    args += ["--model", "fake-model", "--max-revisions", "0", "--seed", "7", "--out", str(out)]
    assert main(args) == EXIT_OK
    captured = capsys.readouterr()
    seeds = [body["seed"] for body in fake_openai.requests() if "seed" in body]
    assert seeds and min(seeds) == 7  # the samples' seeds start from --seed's
    assert "swarm  solved 1/1 (100%; dev 1/1; some candidate right on 1)" in captured.out
    assert "direct solved 0/1 (0%; dev 0/1)" in captured.out
    assert "[direct] 01_add: not solved" in captured.err
    saved = json.loads(out.read_text())
    assert saved["summary"]["swarm"]["solved"] == 1 and saved["max_revisions"] == 0
    assert saved["models"]["coder"] == "fake-model" and saved["seed"] == 7


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tasks", "/nonexistent/tasks"], "is not a directory"),
        (["--arms", "swarm,oracle"], "--arms takes any of swarm, plain, plain"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--only", "99_nope"], "unknown tasks"),
    ],
)
def test_eval_command_rejects_bad_input_with_exit_2(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--base-url", "http://127.0.0.1:9/v1", *extra]) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_plain_files_gets_each_table_with_three_rows_not_the_maps_code_values(
    tmp_path: Path,
) -> None:
    db = table_db(tmp_path / "shop.db")
    listing = evaluate.project_listing(None, db)
    assert (
        "CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT)"
        in listing
    )
    assert "-- 3 of 7 rows:\n(1, 'SKU-1', 2, 'OK')" in listing
    assert "is one of" not in listing  # the swarm's map shows "-- stat_cd is one of: 'CXL', 'OK'"
    mapped = {e.name: e.text for e in build_map(None, db).entries}
    assert "-- stat_cd is one of: 'CXL', 'OK'" in mapped["ord_ln"]
