"""Search and read files under a per-run workspace root, never outside it.

Every path the model gives is relative to the root. Absolute paths, ``~`` and ``..``
components are refused outright; whatever remains is resolved with ``realpath`` and must
still lie inside the root, so a symlink pointing out is refused (reads) or skipped
(searches). The final open uses ``O_NOFOLLOW`` so the last component cannot be swapped
for a symlink between the check and the open. Binary files (a NUL byte in the first
8 KiB) are skipped, big files are skipped by search and truncated by read, and every
result is capped, each cap reported in ``notes``. Regexes with nested quantifiers are
refused because Python's ``re`` has no timeout.
"""

from __future__ import annotations

import fnmatch
import io
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.gitignore import GITIGNORE, GitIgnores

__all__ = [
    "ReadArgs",
    "ReadResult",
    "SearchArgs",
    "SearchMatch",
    "SearchResult",
    "WorkspaceError",
    "join_path",
    "read_workspace_file",
    "relative_path",
    "resolve_in_root",
    "search_workspace",
]

WorkspaceErrorKind = Literal[
    "outside_root", "invalid_path", "not_found", "not_a_file", "binary", "invalid_pattern"
]

MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024
MAX_FILES_SCANNED = 5000
MAX_READ_LINES = 500
MAX_READ_CHARS = 100_000
MAX_LINE_CHARS = 400
_MAX_MATCH_LINE = 4000
_SEARCH_BUDGET_S = 5.0
SNIFF_BYTES = 8192
_LINE_READ_CAP = 65536
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
     ".ruff_cache", ".pytest_cache", ".tox"}
)  # fmt: skip
# A quantified group that itself contains a quantifier, e.g. (a+)+ or (\w*x)*.
_NESTED_QUANTIFIER = re.compile(r"\([^()]*[*+}][^()]*\)\s*[*+{]")


class WorkspaceError(Exception):
    """A path or pattern was refused; ``kind`` says why."""

    def __init__(self, kind: WorkspaceErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: WorkspaceErrorKind = kind


class SearchArgs(BaseModel):
    """Arguments of the ``workspace_search`` tool."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=300, description="Text or regex to find.")
    regex: bool = Field(default=False, description="Treat query as a Python regex.")
    case_sensitive: bool = False
    globs: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list,
        max_length=10,
        description="Only files matching one of these globs, e.g. '*.py' or 'src/**/*.md'.",
    )
    max_results: int = Field(default=50, ge=1, le=200)


class ReadArgs(BaseModel):
    """Arguments of the ``workspace_read`` tool."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        min_length=1, max_length=1000, description="File path relative to the workspace."
    )
    start_line: int = Field(default=1, ge=1, le=10_000_000, description="First line, 1-based.")
    end_line: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Last line (inclusive); default: 500 on."
    )


class SearchMatch(BaseModel):
    """One matching line."""

    path: str
    line_number: int
    line: str


class SearchResult(BaseModel):
    """Matches of one search, capped; ``notes`` explains anything skipped or cut."""

    matches: list[SearchMatch]
    truncated: bool
    files_scanned: int
    notes: list[str]


class ReadResult(BaseModel):
    """A line range of one file."""

    path: str
    start_line: int
    end_line: int
    total_lines: int | None
    content: str
    truncated: bool
    notes: list[str]


def resolve_in_root(root: Path, rel: str) -> Path:
    """Resolve ``rel`` under ``root``, refusing anything that would end up outside it."""
    if not rel or "\0" in rel:
        raise WorkspaceError("invalid_path", "empty path or NUL byte in path")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or rel.startswith("~"):
        raise WorkspaceError("outside_root", f"path must be relative to the workspace: {rel!r}")
    if ".." in pure.parts:
        raise WorkspaceError("outside_root", f"'..' is not allowed in paths: {rel!r}")
    base = Path(os.path.realpath(root))
    real = Path(os.path.realpath(base.joinpath(*pure.parts)))
    if not real.is_relative_to(base):
        raise WorkspaceError("outside_root", f"path resolves outside the workspace: {rel!r}")
    return real


def read_workspace_file(
    root: Path, path: str, start_line: int = 1, end_line: int | None = None
) -> ReadResult:
    """Return lines ``start_line``..``end_line`` (1-based, inclusive) of a workspace file."""
    real = resolve_in_root(root, path)
    if not real.exists():
        raise WorkspaceError("not_found", f"no such file: {path!r}")
    if not real.is_file():
        raise WorkspaceError("not_a_file", f"not a regular file: {path!r}")
    start = max(start_line, 1)
    notes: list[str] = []
    last = start + MAX_READ_LINES - 1
    if end_line is not None and end_line < last:
        last = max(end_line, start)
    elif end_line is not None and end_line > last:
        notes.append(f"at most {MAX_READ_LINES} lines per read; ask for the next range")
    small = real.stat().st_size <= MAX_SEARCH_FILE_BYTES
    with _open_text(real) as handle:
        lines = _iter_lines(handle)
        content, included, seen, cut = _collect_lines(lines, start, last)
        total = seen + sum(1 for _ in lines) if small else None
    if cut:
        notes.append(f"output capped at {MAX_READ_CHARS} characters; ask for the next range")
    if total is None:
        notes.append("large file: total line count not computed")
    if included < start:
        notes.append(f"start_line {start} is past the end of the file ({seen} lines)")
    return ReadResult(
        path=path,
        start_line=start,
        end_line=included,
        total_lines=total,
        content=content,
        truncated=cut or (end_line is not None and included < min(end_line, total or end_line)),
        notes=notes,
    )


def _collect_lines(lines: Iterator[str], start: int, last: int) -> tuple[str, int, int, bool]:
    """Join lines start..last; return (text, last line included, lines consumed, cut)."""
    parts: list[str] = []
    size = 0
    seen = 0
    for line in lines:
        seen += 1
        if seen < start:
            continue
        text = _clip(line, 4 * MAX_LINE_CHARS)
        if size + len(text) > MAX_READ_CHARS:
            return "\n".join(parts), seen - 1, seen, True
        parts.append(text)
        size += len(text) + 1
        if seen >= last:
            break
    return "\n".join(parts), min(seen, last), seen, False


def search_workspace(
    root: Path,
    query: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    globs: Sequence[str] = (),
    max_results: int = 50,
) -> SearchResult:
    """Find lines matching ``query`` in text files under ``root`` (optionally globbed)."""
    pattern = _compile(query, regex=regex, case_sensitive=case_sensitive)
    base = Path(os.path.realpath(root))
    if not base.is_dir():
        raise WorkspaceError("not_found", "workspace root does not exist")
    deadline = time.monotonic() + _SEARCH_BUDGET_S
    matches: list[SearchMatch] = []
    notes: list[str] = []
    scanned = 0
    for rel, real in _walk(base, globs):
        if scanned >= MAX_FILES_SCANNED or time.monotonic() > deadline:
            notes.append(f"search stopped after {scanned} files (limit reached)")
            break
        if not _searchable(real, rel, notes):
            continue
        scanned += 1
        matches += _grep(real, rel, pattern, max_results + 1 - len(matches))
        if len(matches) > max_results:
            break
    truncated = len(matches) > max_results or any("stopped" in n for n in notes)
    return SearchResult(
        matches=matches[:max_results], truncated=truncated, files_scanned=scanned, notes=notes
    )


def _compile(query: str, *, regex: bool, case_sensitive: bool) -> re.Pattern[str]:
    flags = 0 if case_sensitive else re.IGNORECASE
    if not regex:
        return re.compile(re.escape(query), flags)
    if _NESTED_QUANTIFIER.search(query):
        raise WorkspaceError("invalid_pattern", "nested quantifiers like (a+)+ are not allowed")
    try:
        return re.compile(query, flags)
    except re.error as exc:
        raise WorkspaceError("invalid_pattern", f"invalid regex: {exc}") from exc


def _walk(base: Path, globs: Sequence[str]) -> Iterator[tuple[str, Path]]:
    """Yield (relative posix path, resolved path) of files inside ``base``, sorted.

    What the workspace's ``.gitignore`` files name is left out, as the project map leaves it.
    """
    ignores = GitIgnores()
    for dirpath, dirnames, filenames, dirfd in os.fwalk(base, follow_symlinks=False):
        rel_dir = relative_path(dirpath, str(base))
        if GITIGNORE in filenames:
            ignores.read(rel_dir, dirfd)  # unreadable rules: nothing left out
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS and not ignores.ignored(join_path(rel_dir, d), directory=True)
        )
        for name in sorted(filenames):
            rel = join_path(rel_dir, name)
            if ignores.ignored(rel) or (globs and not _glob_match(rel, globs)):
                continue
            real = Path(os.path.realpath(Path(dirpath) / name))
            # A symlink may point anywhere; only keep it if it stays inside the root.
            if real.is_relative_to(base):
                yield rel, real


def relative_path(path: str, base: str) -> str:
    """``path`` as a posix path relative to the root ``base``: "" for the root itself."""
    rel = os.path.relpath(path, base)
    return "" if rel == "." else rel.replace(os.sep, "/")


def join_path(rel_dir: str, name: str) -> str:
    """The workspace path of ``name`` in the folder ``rel_dir`` ("" for the root)."""
    return f"{rel_dir}/{name}" if rel_dir else name


def _glob_match(rel: str, globs: Sequence[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    for glob in globs:
        # fnmatch's '*' already crosses '/', so '**/' only needs to allow "no directory".
        variants = {glob, glob.replace("**/", "")}
        if any(fnmatch.fnmatchcase(rel, g) or fnmatch.fnmatchcase(name, g) for g in variants):
            return True
    return False


def _searchable(real: Path, rel: str, notes: list[str]) -> bool:
    try:
        if not real.is_file():
            return False
        if real.stat().st_size > MAX_SEARCH_FILE_BYTES:
            notes.append(f"skipped large file {rel}")
            return False
        with real.open("rb") as handle:
            binary = b"\0" in handle.read(SNIFF_BYTES)
    except OSError:
        return False
    if binary and len(notes) < 20:
        notes.append(f"skipped binary file {rel}")
    return not binary


def _grep(real: Path, rel: str, pattern: re.Pattern[str], limit: int) -> list[SearchMatch]:
    found: list[SearchMatch] = []
    with _open_text(real) as handle:
        for number, line in enumerate(_iter_lines(handle), start=1):
            # Match at most _MAX_MATCH_LINE characters to bound the regex's work per line.
            if pattern.search(line[:_MAX_MATCH_LINE]):
                found.append(SearchMatch(path=rel, line_number=number, line=_clip(line, 0)))
                if len(found) >= limit:
                    break
    return found


def _open_text(real: Path) -> io.TextIOWrapper:
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise WorkspaceError("not_found", f"cannot open {real.name}: {exc.strerror}") from exc
    raw = os.fdopen(fd, "rb")
    if b"\0" in raw.read(SNIFF_BYTES):
        raw.close()
        raise WorkspaceError("binary", f"binary file, not shown: {real.name}")
    raw.seek(0)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace")


def _iter_lines(handle: io.TextIOWrapper) -> Iterator[str]:
    """Yield lines, keeping at most _LINE_READ_CAP characters of each in memory."""
    while line := handle.readline(_LINE_READ_CAP):
        rest = line
        while not rest.endswith("\n") and (rest := handle.readline(_LINE_READ_CAP)):
            pass  # drop the tail of an over-long line without holding it
        yield line


def _clip(line: str, limit: int) -> str:
    text = line.rstrip("\r\n")
    cap = limit or MAX_LINE_CHARS
    return text if len(text) <= cap else text[:cap] + "...[line truncated]"
