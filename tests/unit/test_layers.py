"""The packages' import rule: bench -> app -> graphs -> agents -> tools, runtime; never back up.

Read from the source (every import statement, also those inside functions), not by importing:
a late import inside a function breaks the rule as much as one at the top.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.source import imported_modules

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = {"app", "bench", "graphs", "agents", "tools", "runtime"}

NEVER = {
    "graphs": {"app", "bench"},
    "agents": {"app", "bench", "graphs"},
    "tools": {"app", "bench", "graphs", "agents"},
    "runtime": {"app", "bench", "graphs", "agents", "tools"},
    "app": {"bench"},
}
"""What each package must not import: every import runs downwards, without exception."""


def imported_packages(path: Path) -> set[str]:
    """The first-party top-level packages a module imports (relative imports stay inside)."""
    return {module.split(".")[0] for module in imported_modules(path)} & FIRST_PARTY


@pytest.mark.parametrize("package", sorted(NEVER))
def test_no_package_imports_a_layer_above_it(package: str) -> None:
    broken = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & NEVER[package])
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert not {where: what for where, what in broken.items() if what}


def test_the_rule_sees_late_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from app import runner\n    import graphs.swarm\n")
    assert imported_packages(module) == {"app", "graphs"}


def test_the_application_is_not_in_the_graph_package() -> None:
    moved = ("cli", "runner", "runs", "runs_db", "report", "evaluate", "checkpointer")
    assert not [name for name in moved if (ROOT / "graphs" / f"{name}.py").exists()]
    assert all((ROOT / "app" / f"{name}.py").exists() for name in moved)
