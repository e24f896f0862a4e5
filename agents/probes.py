"""Inputs that tell candidates apart: the checks' calls with their literal arguments varied.

No model writes them and none carries an expected value. Every candidate that passed the gate
runs them, and what each returns (or raises) is compared across candidates, as AlphaCode
clusters samples by behaviour: independent samples that do the same thing on inputs nobody
checked are more likely right than one that does something else. This decides between
candidates that the checks cannot tell apart (they pass the same checks), which is where the
eval saw the swarm choose a wrong candidate beside right ones.

Pure functions (no I/O): :func:`probes` derives the calls, :func:`observation` turns one
sandboxed outcome into a comparable key.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import zip_longest
from typing import Any

from tools.check_runner import Check
from tools.perturb import COPIES, probe_path
from tools.pysource import parse

MAX_PROBES = 16
"""Probe calls per run (each candidate runs all of them in one sandboxed process)."""
_PER_VALUE = 4
"""Variants tried per argument."""
_MAX_INT = 10**6
"""Integers are varied only below this size, so a probe stays quick for a right solution."""
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _strings(text: str) -> list[str]:
    half = text[: len(text) // 2]
    return [text[::-1], text.swapcase(), half, "", f"  {text}  ", text + text]


def _ints(number: int) -> list[int]:
    if abs(number) >= _MAX_INT:
        return []
    return [number + 1, number * 2 if number else 3, number + 7, 0, -number]


def _sequence(items: list[Any]) -> list[list[Any]]:
    out: list[list[Any]] = [items[::-1], items[: len(items) // 2], [], items + items]
    with contextlib.suppress(TypeError):
        out.insert(1, sorted(items))
    return out


def variants(value: Any) -> list[Any]:
    """Other values of ``value``'s type, near it: reversed, halved, empty, doubled, ..."""
    found: list[Any]
    if isinstance(value, bool) or value is None:
        found = [] if value is None else [not value]
    elif isinstance(value, int):
        found = list(_ints(value))
    elif isinstance(value, float):
        found = [value * 2, value + 0.5, 0.0, -value]
    elif isinstance(value, str):
        found = list(_strings(value))
    elif isinstance(value, list):
        found = list(_sequence(value))
    elif isinstance(value, tuple):
        found = [tuple(v) for v in _sequence(list(value))]
    elif isinstance(value, dict):
        items = list(value.items())
        found = [{}, dict(items[: len(items) // 2]), dict(items[::-1])]
    else:
        found = []
    unique: list[Any] = []
    for item in found:
        if item != value and item not in unique:
            unique.append(item)
    return unique[:_PER_VALUE]


Parsed = tuple[str, list[Any], dict[str, Any]]
"""A call of literals: the callee's source, its positional and its keyword arguments."""


def _literal_args(call: str) -> Parsed | None:
    """The callee's source and the call's literal arguments (None: not a call of literals)."""
    try:
        node = parse(call, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if len(kwargs) != len(node.keywords):
        return None
    return ast.unparse(node.func), args, kwargs


def _source(callee: str, args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{callee}({', '.join(parts)})"


def _from_check(
    parsed: Parsed, peers: Sequence[Parsed], files: Collection[str] = ()
) -> Iterator[str]:
    """Probe calls from one check: each argument varied, then crossed with another check's.

    An argument that names one of the project's ``files`` is not varied as a string: a
    reversed path names no file (:func:`file_probes` varies the file instead).
    """
    callee, args, kwargs = parsed
    for position, value in enumerate(args):
        if isinstance(value, str) and value in files:
            continue
        for other in variants(value):
            yield _source(callee, [*args[:position], other, *args[position + 1 :]], kwargs)
    for name, value in kwargs.items():
        for other in variants(value):
            yield _source(callee, args, {**kwargs, name: other})
    for theirs in peers:
        if theirs is parsed or theirs[0] != callee or len(theirs[1]) != len(args):
            continue
        for position in range(len(args)):
            crossed = [*args[:position], theirs[1][position], *args[position + 1 :]]
            yield _source(callee, crossed, kwargs)


def probes(
    checks: Sequence[Check], limit: int = MAX_PROBES, files: Collection[str] = ()
) -> list[Check]:
    """Up to ``limit`` calls no check makes, varied from the checks' literal arguments.

    Taken in turn from each check, so one long check does not fill the list. A check with
    setup statements (a class's method calls) keeps its setup. The expected value is unused:
    a probe is observed, never judged.
    """
    seen = {check.key() for check in checks}
    parsed = [(check, _literal_args(check.call)) for check in checks]
    peers = [call for _, call in parsed if call is not None]
    streams = [
        ((tuple(check.setup), call) for call in _from_check(literal, peers, files))
        for check, literal in parsed
        if literal is not None and not check.raises
    ]
    chosen: list[Check] = []
    for row in zip_longest(*streams):
        for item in row:
            if item is None or item in seen or len(item[1]) > 300:
                continue
            seen.add(item)
            chosen.append(Check(call=item[1], expected="None", source="probe", setup=item[0]))
            if len(chosen) >= limit:
                return chosen
    return chosen


def file_probes(
    checks: Sequence[Check], is_file: Callable[[str], bool], copies: int = COPIES
) -> tuple[list[Check], list[str]]:
    """Calls of the checks on altered copies of the project files they name, and those files.

    ``customer_name("shop.db", 1005)`` gives ``customer_name("_probe1/shop.db", 1005)`` and
    so on (:func:`tools.perturb.probe_path`); the caller puts the altered copies there
    (:func:`tools.perturb.altered`). ``is_file``: whether a string names a project file.
    """
    calls: list[Check] = []
    named: list[str] = []
    seen = {check.key() for check in checks}
    for check in checks:
        literal = _literal_args(_called(check.call))
        if literal is None or check.raises:
            continue
        callee, args, kwargs = literal
        for position, value in enumerate(args):
            if not isinstance(value, str) or not is_file(value):
                continue
            if value not in named:
                named.append(value)
            for copy in range(1, copies + 1):
                moved = [*args[:position], probe_path(value, copy), *args[position + 1 :]]
                probe = Check(
                    call=_source(callee, moved, kwargs),
                    expected="None",
                    source="probe",
                    setup=tuple(check.setup),
                )
                if probe.key() not in seen:
                    seen.add(probe.key())
                    calls.append(probe)
    return calls, named


def _called(call: str) -> str:
    """The call a check makes: ``f('shop.db')`` of ``f('shop.db') is not None``.

    A probe observes what the call returns; a comparison's True says nothing apart.
    """
    try:
        node = parse(call, mode="eval").body
    except SyntaxError:
        return call
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call):
        return ast.unparse(node.left)
    return call


RAISED = "raised "
"""How an :func:`observation` of a raised exception begins."""


def observation(got: str, error: str) -> str:
    """One probe's outcome as a key two candidates can share.

    The value's repr (object addresses dropped), or the exception's type.
    """
    if error:
        return RAISED + error.partition(":")[0]
    return _ADDRESS.sub("", got)


def raised(seen: str) -> str | None:
    """The exception type an :func:`observation` names, or None for a returned value."""
    return seen[len(RAISED) :] if seen.startswith(RAISED) else None


__all__ = [
    "MAX_PROBES",
    "RAISED",
    "file_probes",
    "observation",
    "probes",
    "raised",
    "variants",
]
