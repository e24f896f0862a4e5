"""Agent tools: sandboxed Python, read-only SQL, workspace search/read and dispatch.

The ``dispatch`` function is not re-exported here, since the name would shadow the
``tools.dispatch`` module; import it as ``from tools.dispatch import dispatch``.
"""

from tools.dispatch import (
    TOOLS,
    ToolCall,
    ToolContext,
    ToolError,
    ToolResult,
    dispatch_call,
    tool_schemas,
)
from tools.sandbox import ExecResult, SandboxConfig, SandboxUnavailable, run_python, run_tests
from tools.sql import SqlError, SqlResult, list_schema, run_query
from tools.workspace import WorkspaceError, read_workspace_file, search_workspace

__all__ = [
    "TOOLS",
    "ExecResult",
    "SandboxConfig",
    "SandboxUnavailable",
    "SqlError",
    "SqlResult",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "WorkspaceError",
    "dispatch_call",
    "list_schema",
    "read_workspace_file",
    "run_python",
    "run_query",
    "run_tests",
    "search_workspace",
    "tool_schemas",
]
