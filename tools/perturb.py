"""Altered copies of a project's data files: inputs that tell candidates apart.

A task over the user's data (``customer_name("shop.db", 1005)``, ``count_loans("logs/x.log")``)
is called with a file's path, and the literal variants of :mod:`agents.probes` turn a path
into a file that does not exist: every candidate raises the same error and nothing is learnt.
A copy of the same file with its data moved about is a probe input every candidate can run:
two candidates that compute the same thing agree on it, one that ranks by revenue instead of
copies, joins on the wrong column or ignores its argument does not.

- A SQLite database: in each table, each column that is no key (not a primary key, not a
  declared foreign key, no ``id``/``*_id`` column, no column name two tables share: those
  are how tables join) has its values shuffled across the rows. Schema, keys, row counts
  and every value's type stay; only which row holds which value changes. In the last copy
  each number is also multiplied by a small factor (1 to 20), so that a sum of one column
  and a sum of products no longer rank alike (copies sold vs revenue).
- A text data file (a log, a CSV): its leading comment lines (and a CSV's header) stay; of
  the lines after them, copy 1 keeps every other one, copy 2 reverses them, copy 3 shuffles
  them and drops a third.
- Anything else (source code, JSON, TOML, INI, binary): no copy; moving its lines about
  makes a file nobody's code can read.

Deterministic: the same file and copy number give the same bytes, so every candidate of a
run sees the same inputs.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
from pathlib import Path, PurePosixPath

COPIES = 3
"""Altered copies made of each data file a check names."""
MAX_PROBE_FILE_BYTES = 256 * 1024
"""A larger file gets no altered copies (each probe run carries them into the sandbox)."""
SQLITE_MAGIC = b"SQLite format 3\x00"
TEXT_DATA_SUFFIXES = frozenset({".log", ".csv", ".tsv", ".txt", ".dat", ".psv", ""})
"""Text files whose lines are records; another suffix gets no copy."""
_COMMENT = ("#", "//", ";", "--")


def altered(name: str, data: bytes, copy: int) -> bytes | None:
    """Copy number ``copy`` (1, 2, 3) of the file ``name`` with its data moved; None: none."""
    if len(data) > MAX_PROBE_FILE_BYTES:
        return None
    if data.startswith(SQLITE_MAGIC):
        return _altered_database(data, copy)
    if PurePosixPath(name).suffix.lower() in TEXT_DATA_SUFFIXES:
        return _altered_lines(name, data, copy)
    return None


def _altered_lines(name: str, data: bytes, copy: int) -> bytes | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    start = 0
    while start < len(lines) and (not lines[start].strip() or lines[start].startswith(_COMMENT)):
        start += 1
    if PurePosixPath(name).suffix.lower() in {".csv", ".tsv", ".psv"} and start < len(lines):
        start += 1  # the header row
    head, body = lines[:start], lines[start:]
    if len(body) < 3:
        return None
    rng = random.Random(f"{name}:{copy}")  # noqa: S311 - a fixed shuffle, no secret
    if copy == 1:
        body = body[::2]
    elif copy == 2:
        body = body[::-1]
    else:
        body = rng.sample(body, len(body))[: max(1, len(body) * 2 // 3)]
    return "".join(head + body).encode("utf-8")


def _altered_database(data: bytes, copy: int) -> bytes | None:
    with tempfile.TemporaryDirectory(prefix="edgeswarm-probe-") as folder:
        path = Path(folder) / "copy.db"
        path.write_bytes(data)
        try:
            conn = sqlite3.connect(path, isolation_level=None)
        except sqlite3.Error:
            return None
        try:
            rng = random.Random(f"db:{copy}")  # noqa: S311 - a fixed shuffle, no secret
            _shuffle_columns(conn, rng, scale=copy == COPIES)
        except sqlite3.Error:
            return None
        finally:
            conn.close()
        return path.read_bytes()


def _shuffle_columns(conn: sqlite3.Connection, rng: random.Random, *, scale: bool) -> None:
    tables = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]
    columns = {t: conn.execute(f"PRAGMA table_info({_quoted(t)})").fetchall() for t in tables}
    keys: set[tuple[str, str]] = set()
    for table in tables:
        for fk in conn.execute(f"PRAGMA foreign_key_list({_quoted(table)})").fetchall():
            keys.add((table, str(fk[3])))
            keys.add((str(fk[2]), str(fk[4])))
    seen: dict[str, int] = {}
    for table in tables:
        for column in columns[table]:
            seen[str(column[1]).lower()] = seen.get(str(column[1]).lower(), 0) + 1
    for table in tables:
        for column in columns[table]:
            name, primary = str(column[1]), bool(column[5])
            low = name.lower()
            if primary or (table, name) in keys or seen[low] > 1:
                continue
            if low == "id" or low.endswith("_id"):
                continue
            _shuffle(conn, table, name, rng, scale=scale)


_SCALES = (1, 2, 3, 5, 10, 20)
"""Factors a number is multiplied by in the last copy: sums of products (revenue) and sums
of one column (copies) rank rows apart only when the columns are not all of one size."""


def _shuffle(
    conn: sqlite3.Connection, table: str, column: str, rng: random.Random, *, scale: bool
) -> None:
    """One column's values shuffled across the rows; left as it was when a constraint objects."""
    try:
        # names read from the database's own schema, quoted
        query = f"SELECT rowid, {_quoted(column)} FROM {_quoted(table)}"  # noqa: S608
        rows = conn.execute(query).fetchall()
    except sqlite3.OperationalError:
        return  # a WITHOUT ROWID table: left alone
    values = [value for _, value in rows]
    rng.shuffle(values)
    if scale:
        values = [_scaled(value, rng) for value in values]
    update = f"UPDATE {_quoted(table)} SET {_quoted(column)} = ? WHERE rowid = ?"  # noqa: S608
    conn.execute("SAVEPOINT shuffle")
    try:
        # Each row's value first becomes a placeholder of its own, so a UNIQUE column never
        # holds one value twice on the way to its permutation.
        conn.executemany(update, [(f"\x00probe{row[0]}", row[0]) for row in rows])
        conn.executemany(update, [(value, row[0]) for value, row in zip(values, rows, strict=True)])
    except sqlite3.DatabaseError:
        conn.execute("ROLLBACK TO shuffle")  # a constraint objects: the column stays as it was
    conn.execute("RELEASE shuffle")


def _scaled(value: object, rng: random.Random) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return value * rng.choice(_SCALES)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def probe_path(path: str, copy: int) -> str:
    """Where copy ``copy`` of the project file ``path`` lies in a probe's sandbox folder."""
    return f"_probe{copy}/{PurePosixPath(path.removeprefix('./')).as_posix()}"
