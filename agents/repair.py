"""Two quick fixes to a candidate before it runs, as an editor would make them.

**The prompt it copied** (:func:`without_echo`). Handed the project's files before the task,
the 0.5B coder often begins its answer by copying them: the ``# path`` headers, a log's lines,
an INI section, the "Task:" line and the statement, and only then its function. Such code does
not parse (measured on the same run: 36 candidates began with a copied header and failed the
gate; 11 of them held the asked function after the copy). Only when the code does not parse,
the runs of lines that are verbatim lines of the prompt are dropped; the result is kept if it
parses and still defines the entry point, else the code stays as written. A copied helper goes
too, and the import fix below brings it back from the project.

**The imports it forgot** (:func:`add_missing_imports`). A small model often writes
``sqlite3.connect(...)`` or ``List[int]`` without the import, or calls the project's
``round_cents`` it was shown without ``from pricing import round_cents``.
Measured on one swarm run of bench/tasks-project: 70 of 245 candidates raised
``NameError``; about 40 of them lacked only such an import. The code is otherwise untouched.

A name is imported only when it is used, bound nowhere in the module (scopes are read with
:mod:`symtable`, the compiler's own analysis) and no builtin, and it has exactly one source:
the project's own definitions first (``symbols``: name -> import line, from the project map),
then a fixed table of standard-library modules and names. A module with ``import *`` or that
does not compile is left as it is.

**The view it made again** (:func:`without_existing_creates`). Shown a saved query of the
database as the snippet right before the task, the 0.5B coder opens its answer by creating
it: ``cursor.execute("CREATE VIEW book_sales AS ...")``, then queries it correctly. The
database has the view already, so the answer fails (``view book_sales already exists``):
measured on ``make demo``'s task, 4 runs of 4 failed so, every candidate written that way.
A statement that creates a table or view the project's database already holds is dropped
(it could only fail, or do nothing); nothing else is.

**The function under the snippet's name** (:func:`under_entry_name`). Shown the project's
helper right before the task, the coder sometimes answers with that helper copied whole,
under its own name (``def catalogue_slug(title)`` for ``shelf_slug(title)``). The gate then
drops it: no ``shelf_slug``. Measured on the 17 project evals in bench/results: of 61 such
gated candidates, 40 held one function; renamed, 13 passed the hidden tests (every one of
shelf_slug's and patient_id's), and the 27 others were copies of a ledger helper on a task
no candidate of those runs solved. When the code defines no ``entry`` at all and exactly one
top-level function that takes the entry's arguments, that function is renamed; the old name
stays bound to it when the code still uses it.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from collections.abc import Collection, Mapping

from tools.check_runner import EntryPoint, gate
from tools.pysource import parse

STDLIB_MODULES = frozenset(
    {
        "base64", "bisect", "calendar", "collections", "configparser", "copy", "csv",
        "dataclasses", "datetime", "decimal", "enum", "fnmatch", "fractions", "functools",
        "glob", "hashlib", "heapq", "io", "itertools", "json", "math", "operator", "os",
        "pathlib", "random", "re", "shlex", "sqlite3", "statistics", "string", "struct",
        "sys", "textwrap", "time", "tomllib", "typing", "unicodedata", "uuid", "zlib",
    }
)  # fmt: skip
"""Modules a solution imports by their own name (``math.ceil``); never one that acts on
import (``this``, ``antigravity``)."""

STDLIB_NAMES: Mapping[str, str] = {
    **{
        name: f"from typing import {name}"
        for name in (
            "Any", "Callable", "Dict", "FrozenSet", "Iterable", "Iterator", "List", "Literal",
            "Mapping", "NamedTuple", "Optional", "Sequence", "Set", "Tuple", "TypedDict",
            "Union",
        )
    },
    **{
        name: f"from collections import {name}"
        for name in ("Counter", "OrderedDict", "defaultdict", "deque", "namedtuple")
    },
    **{name: f"from decimal import {name}" for name in ("Decimal", "ROUND_HALF_UP", "ROUND_DOWN")},
    **{name: f"from datetime import {name}" for name in ("date", "timedelta", "timezone")},
    **{name: f"from functools import {name}" for name in ("lru_cache", "reduce", "cache")},
    "Fraction": "from fractions import Fraction",
    "Path": "from pathlib import Path",
    "dataclass": "from dataclasses import dataclass",
    "Enum": "from enum import Enum",
}  # fmt: skip
"""Names a solution uses unqualified, and the one import each comes from."""

_DATETIME_CLASS = frozenset(
    {"strptime", "now", "today", "fromisoformat", "fromtimestamp", "combine", "utcnow"}
)
"""``datetime.X`` calls of the class, not of the module: they want ``from datetime import
datetime``."""

_MODULE_GLOBALS = frozenset(
    {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__"}
)


def add_missing_imports(
    code: str, symbols: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    """``code`` with an import for each name it uses and never binds, and the lines added.

    ``symbols`` maps a project name to the import that brings it (``"round_cents"`` ->
    ``"from pricing import round_cents"``). A name with no known source stays missing (its
    ``NameError`` is the candidate's own feedback).
    """
    try:
        tree = parse(code)
        missing = _unbound(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code, []
    if not missing or _star_import(tree):
        return code, []
    lines: list[str] = []
    for name in sorted(missing):
        line = _source(name, tree, symbols or {})
        if line and line not in lines:
            lines.append(line)
    if not lines:
        return code, []
    return _insert(code, tree, lines), lines


_MIN_RUN = 2
"""Copied lines dropped only in runs of at least this many (one line may be the model's own)."""


def without_echo(code: str, prompt: str, entry: EntryPoint | None) -> str | None:
    """``code`` without the runs of lines it copied from ``prompt``; None: no such fix.

    Only for code that does not parse, and only when what is left passes the gate the checks
    apply (:func:`tools.check_runner.gate`: it parses and defines ``entry``), or, with no
    entry point, defines something at the top level.
    """
    if not prompt.strip() or _parses(code):
        return None
    known = {line.rstrip() for line in prompt.splitlines() if line.strip()}
    lines = code.splitlines()
    copied = [line.rstrip() in known for line in lines]
    keep: list[str] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and copied[end]:
            end += 1
        if end - index >= _MIN_RUN or (end > index and _prose(lines[index:end])):
            index = end  # a copied run: dropped
            continue
        keep.append(lines[index])
        index += 1
    fixed = "\n".join(keep).strip("\n") + "\n"
    if fixed == code or gate(fixed, entry) or (entry is None and not _defines_any(fixed)):
        return None
    return fixed


def _prose(lines: list[str]) -> bool:
    """A copied line that cannot be Python: a ``# path`` header aside, text that does not parse."""
    return all(not line.lstrip().startswith("#") and not _parses(line.strip()) for line in lines)


def _parses(code: str) -> bool:
    return _tree(code) is not None


def _tree(code: str) -> ast.Module | None:
    """``code`` parsed, or None when it does not parse."""
    try:
        return parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines_any(code: str) -> bool:
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in parse(code).body
    )


def _unbound(code: str) -> set[str]:
    """Global names the module reads and binds nowhere, builtins aside."""
    bound, read = _globals(code)
    return read - bound - set(dir(builtins)) - _MODULE_GLOBALS


def _globals(code: str) -> tuple[set[str], set[str]]:
    """The global names the module binds, and those it reads (scopes read with symtable)."""
    top = symtable.symtable(code, "solution.py", "exec")
    bound: set[str] = set()
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if table is top:
                if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
                    bound.add(name)
                elif symbol.is_referenced():
                    read.add(name)
            elif symbol.is_declared_global() and symbol.is_assigned():
                bound.add(name)  # `global x; x = ...` inside a function binds it
            elif symbol.is_global() and symbol.is_referenced():
                read.add(name)
        tables.extend(table.get_children())
    return bound, read


_CREATE = re.compile(
    r"\s*CREATE\s+(?:TEMP(?:ORARY)?\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"(?:\"([^\"]+)\"|`([^`]+)`|\[([^\]]+)\]|(\w+))[^;]*;?\s*",
    re.IGNORECASE,
)
"""One ``CREATE TABLE`` or ``CREATE VIEW`` statement, its name in any of SQLite's quotes."""


def without_existing_creates(code: str, existing: Collection[str]) -> tuple[str, list[str]]:
    """``code`` without the statements that create a table or view its database has.

    A statement goes when it is ``<anything>.execute(...)`` or ``.executescript(...)`` of one
    literal ``CREATE VIEW|TABLE name ...`` whose ``name`` is in ``existing`` (any case) and
    has its line(s) to itself; a block left empty gets ``pass``. Returns the code and the
    names dropped. Code that does not parse, or would not after, stays as it is.
    """
    names = {name.lower() for name in existing}
    tree = _tree(code) if names else None
    if tree is None:
        return code, []
    lines = code.splitlines(keepends=True)
    replaced: dict[int, str] = {}  # 0-based line -> what it becomes ("" dropped)
    dropped: list[str] = []
    for body in _bodies(tree):
        found = [(node, name) for node in body if (name := _creates(node, names)) is not None]
        for node, name in found:
            end = node.end_lineno or node.lineno
            if not _alone(lines, node):
                return code, []  # shares a line with another statement
            replaced |= dict.fromkeys(range(node.lineno - 1, end), "")
            dropped.append(name)
        if found and len(found) == len(body):
            replaced[found[0][0].lineno - 1] = " " * found[0][0].col_offset + "pass\n"
    fixed = "".join(replaced.get(index, line) for index, line in enumerate(lines))
    if not dropped or _tree(fixed) is None:
        return code, []
    return fixed, dropped


def under_entry_name(code: str, entry: EntryPoint | None) -> tuple[str, str | None]:
    """``code`` with its one function renamed to the asked ``entry``, and the old name.

    Only when the entry is a function that no top-level statement binds, and the code
    defines exactly one top-level function that takes the entry's positional arguments
    (its required ones no more, and enough of them). The old name is kept (``old = entry``
    at the end) when the code still reads it. Anything else: ``(code, None)``.
    """
    tree = _tree(code) if entry is not None and entry.kind == "function" else None
    if tree is None or entry is None:
        return code, None
    try:
        if entry.name in _globals(code)[0]:
            return code, None
    except SyntaxError:  # parses, but does not compile (``return`` outside a function)
        return code, None
    functions = [
        node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    if len(functions) != 1 or not _takes(functions[0].args, len(entry.parameters)):
        return code, None
    old = functions[0].name
    lines = code.splitlines(keepends=True)
    index = functions[0].lineno - 1
    head = re.compile(rf"\bdef\s+{re.escape(old)}\s*\(")
    if not head.search(lines[index]):
        return code, None  # a decorator's line, or a head split oddly: left as written
    lines[index] = head.sub(f"def {entry.name}(", lines[index], count=1)
    fixed = "".join(lines)
    if any(isinstance(node, ast.Name) and node.id == old for node in ast.walk(tree)):
        fixed = fixed.rstrip("\n") + f"\n\n{old} = {entry.name}\n"
    return (fixed, old) if _tree(fixed) is not None else (code, None)


def _takes(args: ast.arguments, count: int) -> bool:
    """Whether a function with ``args`` can be called with ``count`` positional arguments."""
    positional = len(args.posonlyargs) + len(args.args)
    required = positional - len(args.defaults)
    return required <= count and (count <= positional or args.vararg is not None)


def _alone(lines: list[str], node: ast.stmt) -> bool:
    """Whether ``node`` has its lines to itself (no other statement before or after it)."""
    first, last = lines[node.lineno - 1], lines[(node.end_lineno or node.lineno) - 1]
    return not first[: node.col_offset].strip() and not last[node.end_col_offset or 0 :].strip()


def _bodies(tree: ast.Module) -> list[list[ast.stmt]]:
    """Every statement list of the module: its body and each block's."""
    found: list[list[ast.stmt]] = [tree.body]
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if (
                node is not tree
                and isinstance(block, list)
                and block
                and isinstance(block[0], ast.stmt)
            ):
                found.append(block)
    return found


def _creates(node: ast.stmt, names: set[str]) -> str | None:
    """The existing table or view a statement creates, or None."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if not (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in {"execute", "executescript"}
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return None
    match = _CREATE.fullmatch(call.args[0].value)
    if match is None:
        return None
    name = next(group for group in match.groups() if group is not None)
    return name if name.lower() in names else None


def _star_import(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in ast.walk(tree)
    )


def _source(name: str, tree: ast.Module, symbols: Mapping[str, str]) -> str | None:
    if name in symbols:
        return symbols[name]
    if name == "datetime":
        attributes = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "datetime"
        }
        wants_class = bool(attributes & _DATETIME_CLASS)
        return "from datetime import datetime" if wants_class else "import datetime"
    if name in STDLIB_MODULES:
        return f"import {name}"
    return STDLIB_NAMES.get(name)


def _insert(code: str, tree: ast.Module, lines: list[str]) -> str:
    """The import lines put after a module docstring and ``__future__`` imports."""
    after = 0
    for node in tree.body:
        docstring = (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node is tree.body[0]
        )
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            break
        after = node.end_lineno or after
    source = code.splitlines(keepends=True)
    head, tail = source[:after], source[after:]
    if head and not head[-1].endswith("\n"):
        head[-1] += "\n"
    return "".join(head) + "".join(f"{line}\n" for line in lines) + "".join(tail)
