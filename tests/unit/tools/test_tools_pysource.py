"""tools.pysource: every parse one at a time, and once more after CPython's gh-106905 error."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from tools import pysource

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("agents", "tools", "graphs", "app", "runtime")


def test_parse_returns_the_tree_of_either_mode() -> None:
    module = pysource.parse("def f(x):\n    return x + 1\n")
    assert isinstance(module.body[0], ast.FunctionDef)
    expression = pysource.parse("f(2) == 3", mode="eval")
    assert isinstance(expression.body, ast.Compare)


def test_a_syntax_error_is_raised_as_ast_raises_it() -> None:
    with pytest.raises(SyntaxError):
        pysource.parse("def f(:\n")


def test_a_depth_mismatch_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ast.parse
    calls: list[str] = []

    def flaky(source: str, *args: Any, **kwargs: Any) -> ast.AST:
        calls.append(source)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=27, after=22)")
        tree: ast.AST = real(source, *args, **kwargs)
        return tree

    monkeypatch.setattr(ast, "parse", flaky)  # the module tools.pysource calls
    tree = pysource.parse("x = 1\n")
    assert isinstance(tree.body[0], ast.Assign)
    assert calls == ["x = 1\n", "x = 1\n"]


def test_another_system_error_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(source: str, *args: Any, **kwargs: Any) -> ast.AST:
        raise SystemError("something else")

    monkeypatch.setattr(ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        pysource.parse("x = 1\n")


def test_no_module_parses_python_around_the_lock() -> None:
    direct = re.compile(r"\bast\.parse\(")
    offenders = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name != "pysource.py" and direct.search(path.read_text())
    ]
    assert offenders == [], "parse with tools.pysource.parse, never ast.parse"
