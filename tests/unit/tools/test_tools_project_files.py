"""A candidate runs among the user's project files: which are copied, and what never is."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from app.evaluate import TaskSetError, load_tasks
from tools import project_files
from tools.check_runner import Check, EntryPoint, run_checks
from tools.project_files import ProjectFiles


def _project(root: Path) -> Path:
    (root / "pricing").mkdir(parents=True)
    (root / "pricing" / "__init__.py").write_text("")
    (root / "pricing" / "money.py").write_text(
        "from pricing.rules import STEP\n\n\ndef round_to_step(x):\n"
        "    return round(x / STEP) * STEP\n"
    )
    (root / "pricing" / "rules.py").write_text("STEP = 5\n")
    (root / "config").mkdir()
    (root / "config" / "rates.json").write_text('{"vat": 19}')
    (root / "README.md").write_text("a shop\n")
    return root


def test_a_small_workspace_is_copied_whole_at_its_relative_paths(tmp_path: Path) -> None:
    project = ProjectFiles.scan(_project(tmp_path / "ws"))
    files = project.for_code("print(1)")
    assert set(files) == {
        "pricing/__init__.py",
        "pricing/money.py",
        "pricing/rules.py",
        "config/rates.json",
        "README.md",
    }


def test_a_large_workspace_gives_what_the_code_imports_and_names(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    (root / "other").mkdir()
    for i in range(project_files.MAX_FILES):
        (root / "other" / f"m{i}.py").write_text("X = 1\n")
    project = ProjectFiles.scan(root)
    assert not project.whole
    code = "import json\nfrom pricing.money import round_to_step\nPATH = 'config/rates.json'\n"
    assert set(project.for_code(code)) == {
        "pricing/__init__.py",
        "pricing/money.py",
        "pricing/rules.py",  # imported by money.py
        "config/rates.json",
    }
    assert set(project.for_code("open('rates.json')")) == {"config/rates.json"}  # by its name


def test_symlinks_reserved_names_and_big_files_are_never_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    root = _project(tmp_path / "ws")
    os.symlink(secret, root / "leak.txt")
    os.symlink(tmp_path, root / "up")
    (root / "main.py").write_text("print('the sandbox entry point is ours')\n")
    monkeypatch.setattr(project_files, "MAX_FILE_BYTES", 100)
    (root / "big.csv").write_text("x\n" * 100)
    files = ProjectFiles.scan(root).for_code("open('leak.txt'); open('up/secret.txt')")
    assert not {"leak.txt", "up/secret.txt", "main.py", "big.csv"} & set(files)
    assert all(
        b"password" not in (v if isinstance(v, bytes) else v.encode()) for v in files.values()
    )


def test_the_database_is_copied_by_its_file_name(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "shop.db"
    db.parent.mkdir()
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (a)")
    files = ProjectFiles.scan(None, db).for_code("")
    assert list(files) == ["shop.db"] and isinstance(files["shop.db"], bytes)


def test_checks_run_among_the_project_files(tmp_path: Path) -> None:
    project = ProjectFiles.scan(_project(tmp_path / "ws"))
    code = (
        "import json\nfrom pricing.money import round_to_step\n\n\n"
        "def gross(net):\n"
        "    vat = json.load(open('config/rates.json'))['vat']\n"
        "    return round_to_step(net * (100 + vat) / 100)\n"
    )
    entry = EntryPoint("gross", "function", ("net",))
    run = run_checks(
        code, [Check("gross(100)", "120", "statement")], entry, project=project.for_code(code)
    )
    assert run.gate == "" and run.passed == (True,)
    alone = run_checks(code, [Check("gross(100)", "120", "statement")], entry)
    assert "import failed" in alone.gate


def _task(root: Path, name: str = "01_gross") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "task.txt").write_text("Write `gross(net)`: the price with the project's VAT.")
    (folder / "test_hidden.py").write_text(
        "from solution import gross\n\n\ndef test_gross():\n    assert gross(100) == 120\n"
    )
    _project(folder / "workspace")
    return folder


def test_a_project_task_loads_with_its_workspace_database_and_kind(tmp_path: Path) -> None:
    folder = _task(tmp_path)
    (folder / "facts.json").write_text('{"kind": "config", "facts": ["vat"]}')
    with sqlite3.connect(folder / "workspace" / "shop.db") as conn:
        conn.execute("CREATE TABLE t (a)")
    (task,) = load_tasks(tmp_path)
    assert task.workspace == (folder / "workspace").resolve() and task.kind == "config"
    assert task.database == (folder / "workspace" / "shop.db").resolve()
    inputs = task.input_state()
    assert inputs.workspace == str(task.workspace) and inputs.database == str(task.database)
    right = (
        "from pricing.money import round_to_step\n\n\n"
        "def gross(net):\n    return round_to_step(net * 1.19)\n"
    )
    assert task.grade(right, 30.0).solved
    assert not task.grade("def gross(net):\n    return net * 1.19\n", 30.0).solved


def test_a_task_without_a_workspace_is_as_before(tmp_path: Path) -> None:
    folder = _task(tmp_path)
    for path in sorted((folder / "workspace").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (folder / "workspace").rmdir()
    (task,) = load_tasks(tmp_path)
    assert task.workspace is None and task.database is None and task.kind == ""
    assert task.grade("def gross(net):\n    return 120\n", 30.0).solved


def test_a_workspace_with_two_databases_or_a_symlink_is_refused(tmp_path: Path) -> None:
    folder = _task(tmp_path)
    for name in ("a.db", "b.db"):
        (folder / "workspace" / name).write_bytes(b"")
    with pytest.raises(TaskSetError, match="2 databases"):
        load_tasks(tmp_path)
    (folder / "workspace" / "b.db").unlink()
    os.symlink("/etc/hostname", folder / "workspace" / "host")
    with pytest.raises(TaskSetError, match="symlink"):
        load_tasks(tmp_path)


def test_code_imports_what_the_projects_own_virtualenv_holds(tmp_path: Path) -> None:
    """The workspace's .venv packages are importable beside its modules (bound read-only)."""
    root = _project(tmp_path / "ws")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    packages = root / ".venv" / "lib" / version / "site-packages"
    packages.mkdir(parents=True)
    (packages / "thirdparty.py").write_text("ANSWER = 42\n")
    (root / "pricing" / "uses_dep.py").write_text("from thirdparty import ANSWER\n")
    project = ProjectFiles.scan(root)
    assert project.site_packages == (packages.resolve(),)
    assert not any(name.startswith(".venv") for name in project.sizes)  # bound, not copied
    code = "from pricing.uses_dep import ANSWER\n\n\ndef answer():\n    return ANSWER\n"
    entry = EntryPoint("answer", "function")
    check = [Check("answer()", "42", "statement")]
    files = project.for_code(code)
    with_env = run_checks(code, check, entry, project=files, config=project.sandbox_config())
    assert with_env.gate == "" and with_env.passed == (True,)
    assert "import failed" in run_checks(code, check, entry, project=files).gate


def test_a_venv_link_leading_out_of_the_workspace_is_not_bound(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (outside / "lib" / version / "site-packages").mkdir(parents=True)
    root = _project(tmp_path / "ws")
    os.symlink(outside, root / ".venv")
    assert ProjectFiles.scan(root).site_packages == ()
