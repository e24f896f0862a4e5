"""Dispatch: schemas fit guided decoding; every failure is a structured ToolError."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools import dispatch as dispatch_module
from tools.dispatch import (
    TOOLS,
    ToolCall,
    ToolContext,
    ToolError,
    ToolResult,
    dispatch,
    dispatch_call,
    tool_schemas,
)
from tools.sample_db import create_sample_db
from tools.sandbox import SandboxConfig

FORBIDDEN_KEYWORDS = {"uniqueItems", "multipleOf", "patternProperties", "$ref", "$defs"}


@pytest.fixture
def context(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return ToolContext(workspace_root=ws, database_path=create_sample_db(tmp_path / "shop.db"))


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    yield from _walk(sub)
            else:
                yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def test_schemas_are_bounded_and_closed() -> None:
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == list(TOOLS)
    for tool in schemas:
        params = tool["function"]["parameters"]
        assert params["type"] == "object"
        json.dumps(params)  # plain JSON
        for node in _walk(params):
            assert not FORBIDDEN_KEYWORDS & set(node), node
            if node.get("type") == "object":
                assert node["additionalProperties"] is False, node
            if node.get("type") == "string":
                assert "maxLength" in node and "pattern" not in node, node
            if node.get("type") == "array":
                assert "maxItems" in node, node


def test_schema_subset_and_unknown_name() -> None:
    names = [s["function"]["name"] for s in tool_schemas(["sql_query", "sql_schema"])]
    assert names == ["sql_query", "sql_schema"]
    with pytest.raises(KeyError):
        tool_schemas(["nope"])


def test_unknown_tool_is_a_structured_error(context: ToolContext) -> None:
    result = dispatch("rm_rf", {"path": "/"}, context)
    assert isinstance(result, ToolError)
    assert result.error == "unknown_tool"
    assert "sql_query" in result.available_tools
    assert json.loads(result.to_content())["error"] == "unknown_tool"


@pytest.mark.parametrize(
    ("args", "loc"),
    [
        ('{"query": ', "(arguments)"),
        ("[1, 2]", "(arguments)"),
        ({"max_rows": 5}, "query"),
        ({"query": "SELECT 1", "max_rows": "many"}, "max_rows"),
        ({"query": "SELECT 1", "max_rows": 0}, "max_rows"),
        ({"query": "SELECT 1", "drop": True}, "drop"),
        ({"query": "x" * 9000}, "query"),
    ],
)
def test_invalid_arguments_are_structured(context: ToolContext, args: Any, loc: str) -> None:
    result = dispatch("sql_query", args, context, call_id="c1")
    assert isinstance(result, ToolError)
    assert result.error == "invalid_arguments"
    assert result.call_id == "c1"
    assert result.details and result.details[0].loc == loc


def test_sql_through_dispatch(context: ToolContext) -> None:
    ok = dispatch("sql_query", '{"query": "SELECT COUNT(*) AS n FROM books"}', context)
    assert isinstance(ok, ToolResult)
    assert ok.output["columns"] == ["n"] and ok.output["rows"] == [[14]]
    schema = dispatch("sql_schema", "", context)
    assert isinstance(schema, ToolResult)
    assert any(t["name"] == "orders" for t in schema.output["tables"])
    denied = dispatch("sql_query", {"query": "DELETE FROM books"}, context)
    assert isinstance(denied, ToolError)
    assert (denied.error, denied.kind) == ("refused", "denied")


def test_workspace_through_dispatch(context: ToolContext) -> None:
    found = dispatch("workspace_search", {"query": "beta"}, context)
    assert isinstance(found, ToolResult)
    assert found.output["matches"][0]["line_number"] == 2
    read = dispatch("workspace_read", {"path": "notes.md", "start_line": 3}, context)
    assert isinstance(read, ToolResult) and read.output["content"] == "gamma"
    escape = dispatch("workspace_read", {"path": "../outside.txt"}, context)
    assert isinstance(escape, ToolError)
    assert (escape.error, escape.kind) == ("refused", "outside_root")


def test_missing_resources_are_not_configured() -> None:
    bare = ToolContext()
    for name, args in (("sql_schema", {}), ("workspace_search", {"query": "x"})):
        result = dispatch(name, args, bare)
        assert isinstance(result, ToolError) and result.error == "not_configured"


def test_run_python_and_tests_through_dispatch(context: ToolContext) -> None:
    call = ToolCall(id="t1", name="run_python", arguments=json.dumps({"code": "print(6 * 7)"}))
    ran = dispatch_call(call, context)
    assert isinstance(ran, ToolResult) and ran.call_id == "t1"
    assert ran.output["stdout"] == "42\n" and ran.output["exit_code"] == 0
    files = [
        {"path": "m.py", "content": "def f():\n    return 1\n"},
        {"path": "test_m.py", "content": "from m import f\n\ndef test_f():\n    assert f() == 1\n"},
    ]
    tested = dispatch("run_tests", {"files": files}, context)
    assert isinstance(tested, ToolResult) and tested.output["exit_code"] == 0
    dup = dispatch("run_tests", {"files": [files[0], files[0]]}, context)
    assert isinstance(dup, ToolError) and dup.error == "invalid_arguments"
    escape = dispatch(
        "run_python", {"code": "pass", "files": [files[0] | {"path": "../x"}]}, context
    )
    assert isinstance(escape, ToolError) and escape.error == "invalid_arguments"


def test_sandbox_unavailable_is_reported(tmp_path: Path) -> None:
    ctx = ToolContext(sandbox=SandboxConfig(bwrap_path=str(tmp_path / "missing")))
    result = dispatch("run_python", {"code": "print(1)"}, ctx)
    assert isinstance(result, ToolError)
    assert result.error == "sandbox_unavailable"
    assert "bubblewrap" in result.message


def test_tool_crash_becomes_internal_error(
    context: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(_args: Any, _ctx: ToolContext) -> Any:
        raise RuntimeError("bug with /secret/path")

    spec = TOOLS["sql_schema"]
    monkeypatch.setitem(
        dispatch_module.TOOLS,
        "sql_schema",
        dispatch_module.ToolSpec(spec.name, spec.description, spec.args_model, boom),
    )
    result = dispatch("sql_schema", {}, context)
    assert isinstance(result, ToolError)
    assert result.error == "internal_error"
    assert "/secret/path" not in result.message
