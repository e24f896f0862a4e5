"""A tiny task set on disk for the eval's tests: each task asks for ``add(a, b)``."""

from __future__ import annotations

from pathlib import Path

HIDDEN = """\
from solution import add


def test_small():
    assert add(2, 3) == 5


def test_negative():
    assert add(-4, 1) == -3
"""


def task_set(root: Path, names: tuple[str, ...] = ("01_add", "02_add_again")) -> Path:
    """Write one folder per name under ``root``: its statement and hidden tests."""
    for name in names:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "task.txt").write_text(f"Write add(a, b) returning the sum. ({name})\n")
        (folder / "test_hidden.py").write_text(HIDDEN)
    return root
