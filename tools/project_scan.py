"""The bounded, read-only reading behind :mod:`tools.project_map`: a workspace and its databases.

Reading follows :mod:`tools.workspace`: nothing outside the root is read. The walk opens each
directory relative to its parent without following symlinks (``os.fwalk``) and each file with
``O_NOFOLLOW``; a symlinked file is read only when its target lies inside the root, and a
symlinked directory is never entered. Databases open read-only, ``query_only``, with a time
limit. Files and folders a ``.gitignore`` inside the workspace names are left out, as git
leaves them. Big, binary and non-UTF-8 files are skipped, and the walk stops at 5000 files,
2 MB read or its time budget; each skip is a note. What is read is handed on as text and rows:
turning it into snippets is the map's part.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tools.gitignore import GITIGNORE, GitIgnores
from tools.workspace import (
    MAX_FILES_SCANNED,
    SKIP_DIRS,
    SNIFF_BYTES,
    join_path,
    relative_path,
)

__all__ = [
    "COUNT_CAP",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_OTHER_BYTES",
    "MAX_TOTAL_BYTES",
    "SOURCE_SUFFIXES",
    "TIME_BUDGET_S",
    "Notes",
    "Scan",
    "Table",
    "read_tables",
    "walk",
    "workspace_base",
]

MAX_FILES = MAX_FILES_SCANNED
"""Files listed at most."""
MAX_FILE_BYTES = 1_000_000
"""A larger file is skipped."""
MAX_TOTAL_BYTES = 2_000_000
"""Bytes read at most; later files are listed only."""
MAX_OTHER_BYTES = MAX_TOTAL_BYTES // 2
"""Bytes of data files and docs (anything but :data:`SOURCE_SUFFIXES`) read at most: a
repository whose ``bench/results`` sorts before its ``tools/`` still gets its code read
(measured on this repository: the walk spent the whole budget on result JSONs first)."""
SOURCE_SUFFIXES = frozenset(
    {".py", ".pyi", ".toml", ".ini", ".cfg", ".conf", ".yaml", ".yml", ".properties"}
)
"""Source and config files: read while the total budget lasts."""
TIME_BUDGET_S = 3.0
"""Seconds one map may take (the walk and the databases together)."""
COUNT_CAP = 100_000
"""Rows counted at most per table."""
LATER_DIRS = frozenset(
    {"tests", "test", "bench", "benchmarks", "examples", "docs", "data", "results", "fixtures"}
)
"""Folders walked after their siblings: within the read budget, a project's own code comes
before its tests, benchmarks, docs and data (measured on this repository: the budget was
spent in ``bench/`` and ``tests/`` before ``tools/`` was reached)."""
_SKIP = SKIP_DIRS | {"build", "dist"}
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
_SQLITE_MAGIC = b"SQLite format 3\x00"
_MAX_NOTES = 40
_MAX_TABLES = 100
_DB_TIME_S = 1.5
_TABLE_TIME_S = 0.25
_SAMPLE_ROWS = 3
_CODE_SCAN_ROWS = 2000
"""Rows of a table read to find its code columns' values (:func:`_codes`)."""
_MAX_CODES = 6
"""A column with more values than this is no code column."""
_CODE = re.compile(r"(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_.-]{0,11}")
"""What a code looks like: one short token with a letter (``CXL``, ``NSH``, ``ret-ok``),
never a name, and never a date or a number kept as text (``20230411``)."""


class Notes:
    """Notes of one build: at most ``_MAX_NOTES`` about single files, every limit kept.

    Files skipped for the same reason share one note (:meth:`skip`): on a repository, one
    line per binary or oversized file buried the notes that matter (this one's 14 images
    and 20 result files were 34 of the report's 36 notes).
    """

    def __init__(self) -> None:
        self._items: list[str | tuple[str, list[str]]] = []
        self._skipped: dict[str, list[str]] = {}
        self._dropped = 0

    def add(self, text: str, *, limit: bool = False) -> None:
        """Record ``text``; ``limit`` notes (a bound was reached) are never dropped."""
        if limit or len(self._items) < _MAX_NOTES:
            self._items.append(text)
        else:
            self._dropped += 1

    def skip(self, rel: str, why: str, detail: str = "") -> None:
        """Record that the file ``rel`` was skipped for ``why`` (``detail``: its size, say)."""
        files = self._skipped.get(why)
        if files is None:
            if len(self._items) >= _MAX_NOTES:
                self._dropped += 1
                return
            files = self._skipped[why] = []
            self._items.append((why, files))
        files.append(f"{rel} ({detail})" if detail else rel)

    def done(self) -> tuple[str, ...]:
        """Every note kept, then how many were left out."""
        extra = [f"{self._dropped} more notes left out"] if self._dropped else []
        return (*(_note(item) for item in self._items), *extra)


_FILES_NAMED = 3
"""Files a note of several skipped files names; the rest are counted."""


def _note(item: str | tuple[str, list[str]]) -> str:
    if isinstance(item, str):
        return item
    why, files = item
    if len(files) == 1:
        return f"{files[0]}: {why}"
    named = ", ".join(files[:_FILES_NAMED])
    more = f" and {len(files) - _FILES_NAMED} more" if len(files) > _FILES_NAMED else ""
    noun = "files and folders" if any(f.endswith("/") for f in files) else "files"
    return f"{why} ({len(files)} {noun}): {named}{more}"


@dataclass
class Scan:
    """The mutable state of one walk: what it listed, found and noted, and its bounds."""

    deadline: float
    """``time.monotonic()`` past which nothing more is read."""
    base: str = ""
    """The workspace root, resolved (:func:`workspace_base`)."""
    notes: Notes = field(default_factory=Notes)
    """What was skipped and why."""
    files: list[str] = field(default_factory=list)
    """Every file seen (relative posix paths), in walk order."""
    databases: list[tuple[str, str]] = field(default_factory=list)
    """SQLite files found: (relative path, real path), for :func:`read_tables`."""
    bytes_read: int = 0
    """Bytes of text read so far."""
    reading: bool = True
    """False once ``MAX_TOTAL_BYTES`` is reached: later files are listed only."""
    ignores: GitIgnores = field(default_factory=GitIgnores)
    """The rules of the ``.gitignore`` files read so far."""
    other_bytes_read: int = 0
    """Bytes of data files and docs read so far."""
    reading_other: bool = True
    """False once ``MAX_OTHER_BYTES`` is reached: later data files and docs are listed only."""


@dataclass(frozen=True)
class Table:
    """One table or view of a database: its CREATE statement and first rows."""

    kind: str
    """``table`` or ``view``."""
    name: str
    """The table's name."""
    sql: str
    """Its CREATE statement ("" if SQLite keeps none)."""
    columns: tuple[str, ...]
    """Its columns, as far as they were read."""
    rows: tuple[tuple[object, ...], ...]
    """At most ``_SAMPLE_ROWS`` rows."""
    total: int
    """How many rows it has, up to ``COUNT_CAP + 1``."""
    error: str | None = None
    """Why the rows could not be read (then ``rows`` is empty); ``None`` if they were."""
    codes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Its code columns and every value each holds (:func:`_codes`), e.g. ``('ord_stat',
    ('CXL', 'PCK', 'SHP'))``."""


def workspace_base(root: Path, notes: Notes) -> str | None:
    """The real path of the directory ``root``; ``None``, with a note, if it is none."""
    real = os.path.realpath(root)
    if not os.path.exists(real):
        notes.add(f"{root}: no such workspace directory")
        return None
    if not os.path.isdir(real):
        notes.add(f"{root}: not a directory")
        return None
    return real


# The walk ---------------------------------------------------------------------------------


def walk(scan: Scan) -> Iterator[tuple[str, str]]:
    """Yield (relative path, text) of the text files under ``scan.base`` in sorted order.

    Every file is listed in ``scan.files`` and every SQLite file queued in
    ``scan.databases``, until a bound is reached; each skip is a note.
    """

    def unreadable(error: OSError) -> None:
        scan.notes.add(f"{relative_path(str(error.filename), scan.base)}: not readable")

    # Returning drops the generator, which closes the directory descriptors it holds.
    for dirpath, dirnames, filenames, dirfd in os.fwalk(
        scan.base, onerror=unreadable, follow_symlinks=False
    ):
        rel_dir = relative_path(dirpath, scan.base)
        if GITIGNORE in filenames and (note := scan.ignores.read(rel_dir, dirfd)):
            scan.notes.add(note)
        dirnames[:] = _directories_to_enter(dirnames, dirfd, dirpath, rel_dir, scan)
        for name in sorted(filenames):
            if name.startswith(".") and not name.startswith(".env"):
                continue
            if _bound_reached(scan):
                return
            rel = join_path(rel_dir, name)
            if scan.ignores.ignored(rel):
                scan.notes.skip(rel, "left out, as .gitignore says")
                continue
            if (text := _visit(name, dirpath, rel, dirfd, scan)) is not None:
                yield rel, text


def _inside(real: str, base: str) -> bool:
    return os.path.commonpath([real, base]) == base


def _directories_to_enter(
    dirnames: list[str], dirfd: int, dirpath: str, rel_dir: str, scan: Scan
) -> list[str]:
    keep: list[str] = []
    for name in sorted(dirnames, key=lambda d: (d.lower() in LATER_DIRS, d)):
        if name in _SKIP or name.startswith("."):
            continue
        rel = join_path(rel_dir, name)
        if scan.ignores.ignored(rel, directory=True):
            scan.notes.skip(f"{rel}/", "left out, as .gitignore says")
            continue
        try:
            link = stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode)
        except OSError:
            continue
        if not link:
            keep.append(name)
        elif not _inside(os.path.realpath(os.path.join(dirpath, name)), scan.base):
            scan.notes.add(f"{rel}: a symlink leading out of the workspace, skipped")
    return keep


def _bound_reached(scan: Scan) -> bool:
    """True, with a note, once the walk must stop before its next file."""
    if len(scan.files) >= MAX_FILES:
        scan.notes.add(f"{MAX_FILES} files scanned, the rest not listed", limit=True)
        return True
    if time.monotonic() > scan.deadline:
        scan.notes.add(
            f"time budget spent after {len(scan.files)} files, the rest not listed", limit=True
        )
        return True
    return False


def _visit(name: str, dirpath: str, rel: str, dirfd: int, scan: Scan) -> str | None:
    """List one file and read it: its text, or ``None`` (a database, a skip, a note)."""
    fd = _open_member(name, dirpath, rel, dirfd, scan)
    if fd is None:
        return None
    scan.files.append(rel)
    try:
        return _read_member(fd, os.path.join(dirpath, name), rel, scan)
    except OSError as exc:
        scan.notes.add(f"{rel}: not readable ({exc.strerror})")
        return None
    finally:
        os.close(fd)


def _open_member(name: str, dirpath: str, rel: str, dirfd: int, scan: Scan) -> int | None:
    """Open a regular file of the walk, or a symlink to one inside the root; else a note."""
    try:
        mode = os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            real = os.path.realpath(os.path.join(dirpath, name))
            if not _inside(real, scan.base):
                scan.notes.add(f"{rel}: a symlink leading out of the workspace, skipped")
                return None
            return os.open(real, _OPEN_FLAGS) if os.path.isfile(real) else None
        if not stat.S_ISREG(mode):
            scan.notes.skip(rel, "not a regular file, skipped")
            return None
        return os.open(name, _OPEN_FLAGS, dir_fd=dirfd)
    except OSError as exc:
        scan.notes.add(f"{rel}: not readable ({exc.strerror})")
        return None


def _read_member(fd: int, path: str, rel: str, scan: Scan) -> str | None:
    """One open file's text; or queue it as a database, or note why not."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        scan.notes.skip(rel, "not a regular file, skipped")
        return None
    head = os.read(fd, SNIFF_BYTES)
    if head.startswith(_SQLITE_MAGIC):
        scan.databases.append((rel, os.path.realpath(path)))
    elif info.st_size > MAX_FILE_BYTES:
        scan.notes.skip(rel, "over the 1 MB limit, skipped", f"{info.st_size / 1e6:.1f} MB")
    elif b"\0" in head:
        scan.notes.skip(rel, "binary, skipped")
    elif _room(scan, rel, info.st_size):
        data = head + _read_up_to(fd, MAX_FILE_BYTES - len(head))
        scan.bytes_read += len(data)
        if not _source(rel):
            scan.other_bytes_read += len(data)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            scan.notes.skip(rel, "not UTF-8 text, skipped")
    return None


def _source(rel: str) -> bool:
    return PurePosixPath(rel).suffix.lower() in SOURCE_SUFFIXES


def _room(scan: Scan, rel: str, size: int) -> bool:
    """Whether a text file of ``size`` bytes may still be read; a note at each limit."""
    if scan.reading and scan.bytes_read + size > MAX_TOTAL_BYTES:
        scan.reading = False
        scan.notes.add(
            f"read limit ({MAX_TOTAL_BYTES:,} bytes) reached, later files listed only", limit=True
        )
    if not scan.reading or _source(rel):
        return scan.reading
    if scan.reading_other and scan.other_bytes_read + size > MAX_OTHER_BYTES:
        scan.reading_other = False
        scan.notes.add(
            f"read limit of data and docs ({MAX_OTHER_BYTES:,} bytes) reached: later ones "
            "listed only, source and config files still read",
            limit=True,
        )
    return scan.reading_other


def _read_up_to(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    while limit > 0 and (chunk := os.read(fd, min(limit, 65536))):
        chunks.append(chunk)
        limit -= len(chunk)
    return b"".join(chunks)


# Databases ---------------------------------------------------------------------------------


def read_tables(label: str, path: str, deadline: float, notes: Notes) -> list[Table]:
    """Every table and view of the SQLite file ``path`` (at most ``_MAX_TABLES``), by name.

    Problems become notes naming ``label``, never exceptions.
    """
    remaining = min(deadline - time.monotonic(), _DB_TIME_S)
    if remaining <= 0:
        notes.add(f"{label}: not read, the time budget is spent", limit=True)
        return []
    until = time.monotonic() + remaining
    try:
        with contextlib.closing(_open_database(path)) as conn:
            _limit_time(conn, until)
            objects = conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT ?",
                (_MAX_TABLES + 1,),
            ).fetchall()
            if len(objects) > _MAX_TABLES:
                notes.add(f"{label}: over {_MAX_TABLES} tables, the first {_MAX_TABLES} mapped")
            keys = _key_columns(conn, [str(name) for kind, name, _ in objects if kind == "table"])
            return [
                _read_table(conn, str(kind), str(name), str(sql or ""), until, keys)
                for kind, name, sql in objects[:_MAX_TABLES]
            ]
    except sqlite3.Error as exc:
        notes.add(f"{label}: not a readable SQLite file ({exc})")
        return []


def _open_database(path: str) -> sqlite3.Connection:
    # mode=ro: SQLite refuses writes and never creates the file if it vanished.
    conn = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _limit_time(conn: sqlite3.Connection, deadline: float) -> None:
    # A non-zero return interrupts the statement: a hostile view cannot run forever.
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)


def _key_columns(conn: sqlite3.Connection, tables: Sequence[str]) -> frozenset[str]:
    """The names of the tables' primary-key columns: a column of that name holds keys."""
    found: set[str] = set()
    for table in tables[:_MAX_TABLES]:
        try:
            rows = conn.execute("SELECT name FROM pragma_table_info(?) WHERE pk > 0", (table,))
            found.update(str(name).lower() for (name,) in rows.fetchall())
        except sqlite3.Error:
            continue
    return frozenset(found)


def _read_table(
    conn: sqlite3.Connection,
    kind: str,
    name: str,
    sql: str,
    until: float,
    keys: frozenset[str] = frozenset(),
) -> Table:
    """A table's first rows and row count; each table has a share of the time."""
    _limit_time(conn, min(until, time.monotonic() + _TABLE_TIME_S))
    quoted = '"' + name.replace('"', '""') + '"'
    columns: list[str] = []
    try:
        cursor = conn.execute(f"SELECT * FROM {quoted} LIMIT {_SAMPLE_ROWS}")  # noqa: S608 (quoted name)
        columns = [str(d[0]) for d in cursor.description or ()]
        rows = cursor.fetchall()
        (total,) = conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {quoted} LIMIT {COUNT_CAP + 1})"  # noqa: S608
        ).fetchone()
    except sqlite3.Error as exc:
        return Table(kind, name, sql, tuple(columns), (), 0, str(exc))
    shown = tuple(tuple(row) for row in rows)
    scanned = min(int(total), _CODE_SCAN_ROWS)
    codes = _codes(conn, quoted, columns, keys, shown, scanned) if kind == "table" else ()
    return Table(kind, name, sql, tuple(columns), shown, int(total), codes=codes)


def _codes(
    conn: sqlite3.Connection,
    quoted: str,
    columns: Sequence[str],
    keys: frozenset[str],
    rows: Sequence[Sequence[object]],
    scanned: int,
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The table's code columns, each with every value it holds, sorted.

    A status column's meaning is in its values: ``'CXL'`` for cancelled, ``'NSH'`` for a
    patient who did not come. Three sample rows show one or two of them, and a task's word
    ("cancelled") must be matched to one the model has seen. A code column: its sampled
    values are short tokens (:data:`_CODE`), at most :data:`_MAX_CODES` distinct ones among
    the first :data:`_CODE_SCAN_ROWS` rows, and they repeat (fewer values than rows, so no
    key or name). A column named as a key (``keys``, lower case) is none. A column that
    cannot be read within the table's time is left out.
    """
    found: list[tuple[str, tuple[str, ...]]] = []
    for index, column in enumerate(columns):
        if column.lower() in keys:
            continue
        sampled = [row[index] for row in rows if index < len(row)]
        if not sampled or not all(_is_code(v) for v in sampled):
            continue
        name = '"' + column.replace('"', '""') + '"'
        try:
            values = conn.execute(
                f"SELECT DISTINCT {name} FROM (SELECT {name} FROM {quoted} "  # noqa: S608
                f"LIMIT {_CODE_SCAN_ROWS}) LIMIT {_MAX_CODES + 1}"
            ).fetchall()
        except sqlite3.Error:
            continue
        held = [v for (v,) in values]
        if len(held) <= _MAX_CODES and len(held) < scanned and all(_is_code(v) for v in held):
            found.append((column, tuple(sorted(held))))
    return tuple(found)


def _is_code(value: object) -> bool:
    return isinstance(value, str) and _CODE.fullmatch(value) is not None
