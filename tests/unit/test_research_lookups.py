"""The researcher's lookups: schema derived from the tools, results fed to the brief."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.lookups import available_tools, lookup_plan_schema
from graphs.state import InputState
from graphs.swarm import graph
from tests.fakes import FakeOpenAI
from tests.support.graph import ctx
from tests.support.scripts import GOOD_CODE, audits, brief, code, plan, round_steps, suite, summary
from tools.sample_db import create_sample_db


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "pricing.py").write_text("VAT_RATE = 0.2  # stored without VAT\n")
    return root


def test_available_tools_follow_what_the_run_provides() -> None:
    assert available_tools(False, False) == []
    assert available_tools(True, False) == ["workspace_search", "workspace_read"]
    assert available_tools(False, True) == ["sql_schema", "sql_query"]


def test_plan_schema_is_derived_from_the_tool_argument_models() -> None:
    schema = lookup_plan_schema(["workspace_search", "sql_query"]).model_json_schema()
    text = json.dumps(schema)
    assert '"maxItems": 3' in text
    assert "One read-only SQLite SELECT statement." in text  # SqlQueryArgs' own description
    model = lookup_plan_schema(["sql_schema"])
    with pytest.raises(ValueError):
        model.model_validate({"lookups": [{"tool": "workspace_read", "arguments": {"path": "x"}}]})


async def test_workspace_lookup_reaches_the_brief(fake_openai: FakeOpenAI, workspace: Path) -> None:
    fake_openai.script(
        plan({"tool": "workspace_search", "arguments": {"query": "VAT_RATE"}}),
        brief(),
        summary(),
        *round_steps(GOOD_CODE),
    )
    out = await graph.ainvoke(
        InputState(task="price with VAT", workspace=str(workspace)),
        context=ctx(fake_openai),
        version="v2",
    )
    assert out.value.status == "done", out.value.error
    brief_request = next(
        b
        for b in fake_openai.requests()
        if (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        == "ResearchBrief"
    )
    prompt = brief_request["messages"][-1]["content"]
    assert "workspace_search(query='VAT_RATE')" in prompt and "pricing.py" in prompt
    assert [m.node for m in out.value.metrics][:2] == ["researcher_lookup", "researcher"]


async def test_database_lookup_and_refused_calls_come_back_as_notes(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    db = tmp_path / "shop.db"
    create_sample_db(db)
    fake_openai.script(
        plan(
            {"tool": "sql_schema", "arguments": {}},
            {"tool": "sql_query", "arguments": {"query": "DELETE FROM books"}},
        ),
        brief(),
        summary(),
        *round_steps(GOOD_CODE),
    )
    out = await graph.ainvoke(
        InputState(task="total of an order", database=str(db)),
        context=ctx(fake_openai),
        version="v2",
    )
    assert out.value.status == "done", out.value.error
    prompt = next(
        b
        for b in fake_openai.requests()
        if (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        == "ResearchBrief"
    )["messages"][-1]["content"]
    assert "sql_schema() result" in prompt and "order_items" in prompt
    assert "sql_query(query='DELETE FROM books') error" in prompt  # refused, run goes on


async def test_no_lookup_without_workspace_or_database(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(GOOD_CODE))
    out = await graph.ainvoke(InputState(task="add"), context=ctx(fake_openai), version="v2")
    assert out.value.status == "done"
    names = [
        (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        for b in fake_openai.requests()
    ]
    assert "LookupPlan" not in names


async def test_failed_lookup_plan_does_not_fail_the_run(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    cut = {"schema": "LookupPlan", "content": '{"lookups": [', "finish_reason": "length"}
    fake_openai.script(cut, cut, cut, brief(), summary(), *round_steps(GOOD_CODE))
    out = await graph.ainvoke(
        InputState(task="price with VAT", workspace=str(workspace)),
        context=ctx(fake_openai),
        version="v2",
    )
    assert out.value.status == "done", out.value.error
    plans = [
        b
        for b in fake_openai.requests()
        if (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        == "LookupPlan"
    ]
    assert next(b["max_completion_tokens"] for b in plans) == 384
    prompt = next(
        b
        for b in fake_openai.requests()
        if (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        == "ResearchBrief"
    )["messages"][-1]["content"]
    assert "the lookups could not be planned" in prompt


PRICE_CODE = (
    "from pricing import VAT_RATE\n\n\ndef gross(net):\n    return round(net * (1 + VAT_RATE), 2)\n"
)


async def test_the_project_map_reaches_every_candidate_and_the_test_writer(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    """Verbatim snippets of the project open every prompt that writes code or checks.

    Without the model's lookups, nothing waits for the brief: it is written beside the code.
    """
    (workspace / "notes.md").write_text("# Notes\nNothing about prices here.\n")
    fake_openai.script(
        brief(entry_point="gross"),
        *(code(PRICE_CODE) for _ in range(4)),
        suite([{"call": "gross(10)", "expected": "12.0"}]),
        *audits(),
    )
    out = await graph.ainvoke(
        InputState(task="Write `gross(net)`: the price with VAT.", workspace=str(workspace)),
        context=ctx(fake_openai, candidates=4, model_lookups=False),
        version="v2",
    )
    state = out.value
    assert state.status == "done", state.error
    names = [
        (b.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        for b in fake_openai.requests()
    ]
    assert "LookupPlan" not in names and "StageSummary" not in names
    assert sorted(m.node for m in state.metrics[:3])[0] == "coder"  # the brief beside the code
    writers = [
        b
        for b in fake_openai.requests()
        if (b.get("response_format") or {}).get("json_schema", {}).get("name") == "TestSuite"
    ]
    prompts = [b for b in fake_openai.requests() if "response_format" not in b]
    kinds = {len(b["messages"]) for b in prompts}
    assert len(prompts) == 4 and kinds == {1, 2}  # plain (and stub: 2 with its begun answer)
    for body in [*prompts, *writers]:
        text = "\n".join(str(m["content"]) for m in body["messages"])
        assert "# pricing.py" in text and "VAT_RATE = 0.2" in text, text
    report = state.report
    assert report is not None and report.files["solution.py"] == PRICE_CODE
    assert any("pricing.py" in item for item in report.looked_up)
    assert any("pricing.py" in item for item in report.uses), report.uses


@pytest.mark.parametrize("case", ["empty", "missing", "corrupt_db", "many_files", "binary"])
async def test_a_bad_project_gives_a_note_and_the_run_still_ends(
    fake_openai: FakeOpenAI, tmp_path: Path, case: str
) -> None:
    """An empty, missing or huge workspace, or a corrupt database: a clear note, no crash."""
    root, database = tmp_path / "ws", None
    if case != "missing":
        root.mkdir()
    if case == "corrupt_db":
        database = tmp_path / "shop.db"
        database.write_bytes(b"SQLite format 3\0" + b"garbage" * 100)
    if case == "many_files":
        for i in range(5050):  # past the map's 5000
            (root / f"f{i}.txt").write_text("x\n")
    if case == "binary":
        (root / "blob.bin").write_bytes(b"\0\1\2" * 100)
    fake_openai.script(brief(), *round_steps(GOOD_CODE))
    out = await graph.ainvoke(
        InputState(
            task="Write `add(a, b)`.",
            workspace=str(root),
            database=str(database) if database else None,
        ),
        context=ctx(fake_openai, model_lookups=False),
        version="v2",
    )
    state = out.value
    assert state.status == "done", state.error
    assert state.report is not None and state.report.files["solution.py"] == GOOD_CODE
    notes = " ".join(state.report.project_notes)
    expected = {
        "empty": "",
        "missing": "ws",
        "corrupt_db": "shop.db",
        "many_files": "5000",
        "binary": "blob.bin",
    }[case]
    if case == "many_files" and "time budget spent" in notes:
        expected = "the rest not listed"  # a busy machine: the scan's time ran out first
    assert expected in notes, notes


def test_uses_counts_what_the_code_uses_not_what_it_imports() -> None:
    from graphs.nodes import project_uses

    code = (
        "from labels import label_text, MAX_LINE\nimport money\nimport fines\n\n\n"
        "def f(x):\n    return money.format_cents(x)[:MAX_LINE]\n"
    )
    looked_up = [
        "map: labels.py:label_text",
        "map: labels.py:MAX_LINE",
        "map: money.py:format_cents",
        "map: fines.py:fines",
        "map: shop.db:ord_ln",
    ]
    assert project_uses(code, looked_up) == ["labels.py:MAX_LINE", "money.py:format_cents"]
