"""Where the shared test helpers live, read from the source (every import, late ones too).

A test module or a conftest imports helpers from ``tests/support`` and the fake servers from
``tests/fakes``, never from another test module or a conftest (a fixture that several modules
share lives in the nearest ``conftest.py``, so nothing imports a fixture by name). The
benchmark reaches into ``tests/`` only through ``tests.fakes``, as Python: no path of its own
to a fake server, nor a copy of one's client.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests import fakes
from tests.support import ROOT
from tests.support.source import imported_modules

TEST_MODULE = re.compile(r"^tests(\.\w+)*\.(test_\w+|conftest)$")
PATH_PARTS = {"tests", "fakes", "model_server.py"}
"""Strings that build a path to a fake server; only ``tests/fakes/__init__.py`` knows it."""


def sources(folder: str) -> list[Path]:
    """The Python files under ``folder``, the benchmark's task set (data) left out."""
    found = sorted((ROOT / folder).rglob("*.py"))
    return [path for path in found if not path.relative_to(ROOT).parts[1].startswith("tasks")]


def path_parts(path: Path) -> set[str]:
    """The strings of :data:`PATH_PARTS` that ``path`` joins into a path (``ROOT / "tests"``)."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    joined = [
        side
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
        for side in (node.left, node.right)
    ]
    return {
        side.value for side in joined if isinstance(side, ast.Constant) and side.value in PATH_PARTS
    }


def where(found: dict[Path, list[str]]) -> dict[str, list[str]]:
    return {str(path.relative_to(ROOT)): what for path, what in found.items() if what}


def test_nothing_imports_a_test_module_or_a_conftest() -> None:
    found = {
        path: sorted(m for m in imported_modules(path) if TEST_MODULE.match(m))
        for path in sources("tests") + sources("bench")
    }
    assert not where(found)


def test_the_benchmark_imports_from_tests_only_the_fakes() -> None:
    def outside_fakes(module: str) -> bool:
        top = module.split(".")
        return top[0] == "tests" and top[:2] != ["tests", "fakes"]

    found = {
        path: sorted(m for m in imported_modules(path) if outside_fakes(m))
        for path in sources("bench")
    }
    assert not where(found)


def test_only_the_fakes_package_builds_a_path_to_a_fake_server() -> None:
    known = Path(fakes.__file__).resolve()
    found = {
        path: sorted(path_parts(path))
        for path in sources("tests") + sources("bench")
        if path != known
    }
    assert not where(found)


def test_the_rules_see_late_imports_and_path_parts(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def f():\n"
        "    from tests.unit.test_graph import brief\n"
        "    import tests.conftest\n"
        "    return ROOT / 'tests' / 'fakes' / 'model_server.py', {'tests': 1}['tests']\n"
    )
    modules = imported_modules(module)
    assert modules == {"tests.unit.test_graph", "tests.conftest"}
    assert all(TEST_MODULE.match(m) for m in modules)
    assert not TEST_MODULE.match("tests.support.gateway")
    assert not TEST_MODULE.match("tests.unit.gateway.virtual_gateway")
    assert path_parts(module) == {"tests", "fakes", "model_server.py"}
