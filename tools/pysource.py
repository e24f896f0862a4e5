"""Parsing Python source from several threads at once.

In CPython 3.11 ``ast.parse`` counts the depth of the tree it converts to Python objects in
state that all threads share, and sets the counter afresh at the start of every parse. The
conversion allocates objects, so a garbage collection can run Python code inside it and
another thread can run; a parse in that thread resets the counter, and the first parse then
fails with ``SystemError: AST constructor recursion depth mismatch`` (gh-106905). The swarm
parses candidates in worker threads (the checks' run scores each in one) while the event
loop parses others; measured: one task of 51 in an eval run failed this way, with eight
candidates a round. Every parse in ``agents`` and ``tools`` goes through :func:`parse`: one
at a time (parsing a candidate takes about a millisecond), and once more if a parse outside
this module still got in the way. ``ast.literal_eval`` of a string parses too: hand it the
tree :func:`parse` returns.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

_LOCK = threading.Lock()
_MISMATCH = "recursion depth mismatch"


@overload
def parse(source: str, mode: Literal["exec"] = "exec") -> ast.Module: ...


@overload
def parse(source: str, mode: Literal["eval"]) -> ast.Expression: ...


def parse(source: str, mode: Literal["exec", "eval"] = "exec") -> ast.Module | ast.Expression:
    """``ast.parse(source, mode=mode)``, one thread at a time.

    Raises:
        SyntaxError: the source does not parse (as ``ast.parse``).
    """
    with _LOCK:
        try:
            return _parse(source, mode)
        except SystemError as err:
            if _MISMATCH not in str(err):
                raise
            # Every parse sets the counter afresh: a second one of the same text starts clean.
            return _parse(source, mode)


def _parse(source: str, mode: Literal["exec", "eval"]) -> ast.Module | ast.Expression:
    if mode == "eval":
        return ast.parse(source, mode="eval")
    return ast.parse(source)
