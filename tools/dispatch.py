"""Tool registry and dispatch: validated calls in, structured results or errors out.

Each tool has a pydantic argument model (``extra="forbid"``, every string and list
bounded, no free-form dicts); :func:`tool_schemas` derives the JSON schema handed to the
model from it, with ``$ref`` inlined, so guided decoding produces calls that validate.
:func:`dispatch` never raises for a bad call: an unknown tool, invalid arguments, a
refused query or path, a missing sandbox or even a bug in a tool come back as a
:class:`ToolError` the agent can read and act on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools import sandbox, sql, workspace

__all__ = [
    "TOOLS",
    "ErrorDetail",
    "FileArg",
    "RunPythonArgs",
    "RunTestsArgs",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "args_schema",
    "dispatch",
    "dispatch_call",
    "tool_schemas",
]

log = structlog.get_logger(__name__)

ErrorCategory = Literal[
    "unknown_tool",
    "invalid_arguments",
    "not_configured",
    "refused",
    "sandbox_unavailable",
    "internal_error",
]
_MAX_ERROR_DETAILS = 20


class FileArg(BaseModel):
    """A file placed next to the code in the sandbox's working directory."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, max_length=200, description="Relative path, e.g. 'calc.py'.")
    content: str = Field(max_length=200_000)


class RunPythonArgs(BaseModel):
    """Arguments of the ``run_python`` tool."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=100_000, description="Python source run as main.py.")
    files: list[FileArg] = Field(default_factory=list, max_length=50)
    timeout_s: float = Field(default=10, ge=1, le=60, description="Wall-clock limit.")


class RunTestsArgs(BaseModel):
    """Arguments of the ``run_tests`` tool."""

    model_config = ConfigDict(extra="forbid")

    files: list[FileArg] = Field(
        min_length=1,
        max_length=50,
        description="Code and test_*.py files; test_* functions and unittest cases run.",
    )
    timeout_s: float = Field(default=20, ge=1, le=60)


@dataclass(frozen=True)
class ToolContext:
    """Per-run resources the tools act on; a tool whose resource is unset is refused."""

    workspace_root: Path | None = None
    database_path: Path | None = None
    sandbox: sandbox.SandboxConfig = field(
        default_factory=lambda: sandbox.SandboxConfig(max_output_bytes=64_000)
    )
    sql_timeout_s: float = 2.0


class ToolCall(BaseModel):
    """A call as the model made it; ``arguments`` is the raw JSON text."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=128)
    name: str = Field(max_length=64)
    arguments: str = Field(default="{}", max_length=500_000)


class ToolResult(BaseModel):
    """A successful call's output, JSON-ready."""

    ok: Literal[True] = True
    tool: str
    call_id: str | None = None
    output: dict[str, Any]

    def to_content(self) -> str:
        """Render as the text of a tool message."""
        return self.model_dump_json()


class ErrorDetail(BaseModel):
    """One validation problem: where and what."""

    loc: str
    message: str


class ToolError(BaseModel):
    """A failed call, explained so the agent can fix it and retry."""

    ok: Literal[False] = False
    tool: str
    call_id: str | None = None
    error: ErrorCategory
    kind: str | None = None
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)
    available_tools: list[str] = Field(default_factory=list)

    def to_content(self) -> str:
        """Render as the text of a tool message."""
        return self.model_dump_json(exclude_defaults=True)


class _NotConfigured(Exception):
    pass


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool: its argument model and the function that runs it."""

    name: str
    description: str
    args_model: type[BaseModel]
    run: Callable[[Any, ToolContext], BaseModel]


def _need(value: Path | None, what: str) -> Path:
    if value is None:
        raise _NotConfigured(f"no {what} is configured for this run")
    return value


def _run_python(args: RunPythonArgs, ctx: ToolContext) -> BaseModel:
    files = {f.path: f.content for f in args.files}
    if len(files) != len(args.files):
        raise ValueError("duplicate file paths")
    return sandbox.run_python(args.code, files=files, timeout_s=args.timeout_s, config=ctx.sandbox)


def _run_tests(args: RunTestsArgs, ctx: ToolContext) -> BaseModel:
    files = {f.path: f.content for f in args.files}
    if len(files) != len(args.files):
        raise ValueError("duplicate file paths")
    return sandbox.run_tests(files, timeout_s=args.timeout_s, config=ctx.sandbox)


def _sql_query(args: sql.SqlQueryArgs, ctx: ToolContext) -> BaseModel:
    db = _need(ctx.database_path, "database")
    return sql.run_query(db, args.query, args.max_rows, timeout_s=ctx.sql_timeout_s)


def _sql_schema(_args: sql.SqlSchemaArgs, ctx: ToolContext) -> BaseModel:
    return sql.list_schema(_need(ctx.database_path, "database"))


def _search(args: workspace.SearchArgs, ctx: ToolContext) -> BaseModel:
    return workspace.search_workspace(
        _need(ctx.workspace_root, "workspace"),
        args.query,
        regex=args.regex,
        case_sensitive=args.case_sensitive,
        globs=args.globs,
        max_results=args.max_results,
    )


def _read(args: workspace.ReadArgs, ctx: ToolContext) -> BaseModel:
    root = _need(ctx.workspace_root, "workspace")
    return workspace.read_workspace_file(root, args.path, args.start_line, args.end_line)


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "run_python",
            "Run Python 3 code in an isolated sandbox (no network, no host files, "
            "time/memory limits) and get exit code, stdout and stderr.",
            RunPythonArgs,
            _run_python,
        ),
        ToolSpec(
            "run_tests",
            "Run test_*.py files (plain assert test functions or unittest) next to the "
            "given code in the sandbox; exit_code 0 means every test passed.",
            RunTestsArgs,
            _run_tests,
        ),
        ToolSpec(
            "sql_query",
            "Run one read-only SQLite SELECT; returns column names and rows.",
            sql.SqlQueryArgs,
            _sql_query,
        ),
        ToolSpec(
            "sql_schema",
            "List the database's tables and views with their columns.",
            sql.SqlSchemaArgs,
            _sql_schema,
        ),
        ToolSpec(
            "workspace_search",
            "Search text files in the workspace for a string or regex; returns matching lines.",
            workspace.SearchArgs,
            _search,
        ),
        ToolSpec(
            "workspace_read",
            "Read a line range of a text file in the workspace.",
            workspace.ReadArgs,
            _read,
        ),
    )
}


def tool_schemas(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function tool definitions for ``names`` (default: every tool)."""
    chosen = list(TOOLS) if names is None else list(names)
    unknown = [n for n in chosen if n not in TOOLS]
    if unknown:
        raise KeyError(f"unknown tools: {unknown}")
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOLS[name].description,
                "parameters": args_schema(TOOLS[name].args_model),
            },
        }
        for name in chosen
    ]


def args_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON schema of an argument model with every ``$ref`` inlined and no titles."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    schema.pop("description", None)  # the tool's own description says it better
    inlined = _inline(schema, defs)
    if not isinstance(inlined, dict):
        raise TypeError("argument schema must be an object")
    return inlined


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            # Keys here are property names (a property may well be called "title").
            out[key] = {prop: _inline(sub, defs) for prop, sub in value.items()}
        elif key != "title":
            out[key] = _inline(value, defs)
    return out


def dispatch(
    name: str,
    arguments: str | bytes | Mapping[str, Any] | None,
    context: ToolContext,
    *,
    call_id: str | None = None,
) -> ToolResult | ToolError:
    """Validate and run one tool call; every failure comes back as a :class:`ToolError`."""
    spec = TOOLS.get(name)
    if spec is None:
        return ToolError(
            tool=name[:64],
            call_id=call_id,
            error="unknown_tool",
            message=f"there is no tool named {name[:64]!r}; use one of the available tools",
            available_tools=sorted(TOOLS),
        )
    try:
        args = _parse(spec.args_model, arguments)
    except ValidationError as exc:
        return _invalid(name, call_id, exc)
    try:
        output = spec.run(args, context)
    except Exception as exc:  # a failing tool must never end the agent's run
        return _failure(name, call_id, exc)
    return ToolResult(tool=name, call_id=call_id, output=output.model_dump(mode="json"))


def dispatch_call(call: ToolCall, context: ToolContext) -> ToolResult | ToolError:
    """Dispatch a :class:`ToolCall`."""
    return dispatch(call.name, call.arguments, context, call_id=call.id)


def _parse(model: type[BaseModel], arguments: str | bytes | Mapping[str, Any] | None) -> Any:
    if arguments is None or (isinstance(arguments, str | bytes) and not arguments.strip()):
        return model.model_validate({})
    if isinstance(arguments, str | bytes):
        return model.model_validate_json(arguments)
    return model.model_validate(dict(arguments))


def _invalid(name: str, call_id: str | None, exc: ValidationError) -> ToolError:
    details = [
        ErrorDetail(loc=".".join(str(p) for p in err["loc"]) or "(arguments)", message=err["msg"])
        for err in exc.errors(include_url=False, include_input=False)[:_MAX_ERROR_DETAILS]
    ]
    return ToolError(
        tool=name,
        call_id=call_id,
        error="invalid_arguments",
        message=f"arguments do not match the {name} schema; fix them and call again",
        details=details,
    )


def _failure(name: str, call_id: str | None, exc: Exception) -> ToolError:
    error: ErrorCategory
    kind: str | None = None
    if isinstance(exc, sql.SqlError | workspace.WorkspaceError):
        error, kind = "refused", exc.kind
    elif isinstance(exc, sandbox.SandboxUnavailable):
        error = "sandbox_unavailable"
    elif isinstance(exc, _NotConfigured):
        error = "not_configured"
    elif isinstance(exc, ValueError):
        error = "invalid_arguments"
    else:
        log.exception("tool.crashed", tool=name)
        return ToolError(
            tool=name,
            call_id=call_id,
            error="internal_error",
            message=f"the tool failed unexpectedly ({type(exc).__name__})",
        )
    return ToolError(tool=name, call_id=call_id, error=error, kind=kind, message=str(exc)[:2000])
