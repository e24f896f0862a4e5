"""Workspace search and read stay inside the root and cap what they return."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools import workspace
from tools.workspace import WorkspaceError, read_workspace_file, search_workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "docs").mkdir()
    (ws / "src" / "pkg" / "core.py").write_text(
        "import os\n\ndef greet(name):\n    return f'Hello, {name}'\n\nTODO = 'later'\n"
    )
    (ws / "src" / "main.py").write_text("from pkg.core import greet\nprint(greet('x'))\n")
    (ws / "docs" / "guide.md").write_text("# Guide\nSay hello to the swarm.\n")
    (ws / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0hello")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("hello from git internals\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("hello secret\n")
    return ws


@pytest.mark.parametrize(
    "path",
    ["../outside/secret.txt", "/etc/passwd", "~/.ssh/id_rsa", "src/../../outside/secret.txt",
     "src/..", "..", "a\0b", ""],
)  # fmt: skip
def test_traversal_is_refused(root: Path, path: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        read_workspace_file(root, path)
    assert info.value.kind in {"outside_root", "invalid_path"}


def test_symlink_out_is_refused_for_read_and_skipped_by_search(root: Path) -> None:
    secret = root.parent / "outside" / "secret.txt"
    (root / "link.txt").symlink_to(secret)
    (root / "linkdir").symlink_to(secret.parent, target_is_directory=True)
    (root / "docs" / "inside_link.md").symlink_to(root / "docs" / "guide.md")
    for path in ("link.txt", "linkdir/secret.txt"):
        with pytest.raises(WorkspaceError) as info:
            read_workspace_file(root, path)
        assert info.value.kind == "outside_root"
    result = search_workspace(root, "secret")
    assert result.matches == []
    inside = search_workspace(root, "swarm")
    assert {m.path for m in inside.matches} == {"docs/guide.md", "docs/inside_link.md"}


def test_search_leaves_out_what_a_gitignore_names(root: Path) -> None:
    (root / "build_out").mkdir()
    (root / "build_out" / "gen.py").write_text("hello from generated code\n")
    (root / "run.log").write_text("hello from a log\n")
    (root / "keep.log").write_text("hello kept\n")
    (root / ".gitignore").write_text("build_out/\n*.log\n!keep.log\n")
    (root / "docs" / ".gitignore").write_text("guide.md\n")
    found = {m.path for m in search_workspace(root, "hello").matches}
    assert found == {"src/pkg/core.py", "keep.log"}
    # a file is still read by its path: the rules narrow the search, not what may be read
    assert "hello" in read_workspace_file(root, "run.log").content


def test_literal_search_finds_lines(root: Path) -> None:
    result = search_workspace(root, "hello")
    found = {(m.path, m.line_number) for m in result.matches}
    assert found == {("src/pkg/core.py", 4), ("docs/guide.md", 2)}
    assert not result.truncated
    assert any("binary" in note and "image.png" in note for note in result.notes)


def test_case_sensitivity_regex_and_globs(root: Path) -> None:
    assert search_workspace(root, "hello", case_sensitive=True).matches[0].path == "docs/guide.md"
    regex = search_workspace(root, r"def \w+\(", regex=True)
    assert [(m.path, m.line) for m in regex.matches] == [("src/pkg/core.py", "def greet(name):")]
    only_py = search_workspace(root, "greet", globs=["*.py"])
    assert {m.path for m in only_py.matches} == {"src/main.py", "src/pkg/core.py"}
    nested = search_workspace(root, "greet", globs=["src/**/*.py"])
    assert {m.path for m in nested.matches} == {"src/main.py", "src/pkg/core.py"}
    assert search_workspace(root, "greet", globs=["*.md"]).matches == []


def test_results_are_capped(root: Path) -> None:
    (root / "many.txt").write_text("needle\n" * 500)
    result = search_workspace(root, "needle", max_results=10)
    assert len(result.matches) == 10
    assert result.truncated


def test_huge_and_long_line_files(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace, "MAX_SEARCH_FILE_BYTES", 1000)
    (root / "big.log").write_text("needle\n" * 1000)
    result = search_workspace(root, "needle")
    assert result.matches == []
    assert any("large file big.log" in note for note in result.notes)
    read = read_workspace_file(root, "big.log", 1, 3)
    assert read.content == "needle\nneedle\nneedle"
    assert read.total_lines is None
    (root / "wide.txt").write_text("x" * 100_000 + "\nsecond\n")
    wide = read_workspace_file(root, "wide.txt")
    first, second = wide.content.split("\n")
    assert first.endswith("[line truncated]") and len(first) < 2000
    assert second == "second"


def test_bad_patterns_are_refused(root: Path) -> None:
    for pattern in ("(a+)+$", r"(\w*x)*y", "(unclosed"):
        with pytest.raises(WorkspaceError) as info:
            search_workspace(root, pattern, regex=True)
        assert info.value.kind == "invalid_pattern"
    # The same text searched literally is fine.
    assert search_workspace(root, "(a+)+$").matches == []


def test_read_line_ranges(root: Path) -> None:
    whole = read_workspace_file(root, "src/pkg/core.py")
    assert whole.total_lines == 6
    assert whole.content.splitlines()[2] == "def greet(name):"
    part = read_workspace_file(root, "src/pkg/core.py", start_line=3, end_line=4)
    assert part.content == "def greet(name):\n    return f'Hello, {name}'"
    assert (part.start_line, part.end_line, part.truncated) == (3, 4, False)
    past = read_workspace_file(root, "src/pkg/core.py", start_line=50)
    assert past.content == ""
    assert any("past the end" in n for n in past.notes)


def test_read_caps_line_count(root: Path) -> None:
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 2001)))
    result = read_workspace_file(root, "long.txt", 1, 2000)
    assert result.end_line == workspace.MAX_READ_LINES
    assert result.truncated
    assert result.total_lines == 2000


def test_read_refuses_binary_missing_and_dirs(root: Path) -> None:
    cases = {"image.png": "binary", "nope.txt": "not_found", "src": "not_a_file"}
    for path, kind in cases.items():
        with pytest.raises(WorkspaceError) as info:
            read_workspace_file(root, path)
        assert info.value.kind == kind


def test_hidden_tool_dirs_are_skipped(root: Path) -> None:
    result = search_workspace(root, "git internals")
    assert result.matches == []
    assert os.path.exists(root / ".git" / "config")
