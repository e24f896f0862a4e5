"""How Python reads a project's config and table files, written under their snippets.

A 0.5B coder shown ``config/delivery.toml`` still wrote ``config.delivery.flat_fee_cents``
(a name it never defined), parsed an INI file by splitting lines on ``=`` and tripped on its
comments, or split a CSV whose header it had just read. The project set's config tasks were
1 of 10 solved with the files in the prompt. So each config snippet ends with the line that
loads the file with the standard library and the exact expression of each value, with the
value it gives::

    # read in Python:
    #   import tomllib
    #   with open("config/delivery.toml", "rb") as f: cfg = tomllib.load(f)
    #   cfg["delivery"]["flat_fee_cents"] -> 595

a CSV file with a header row ends with its ``csv.DictReader`` line and one row's fields, and
a file of delimited records without one (``TB|20240311|E017|PRJ-7|240``) with the split of one
record, each field's expression and value, and the kinds of record its first field tells
apart (``fields[0]: 'CKO' 4, 'RNW' 2, 'CKI' 1``).
Only the standard library's parsers are named (``tomllib``, ``json``, ``configparser``,
``csv``): a solution runs in the sandbox, where the project's own environment may lack
PyYAML, so YAML and ``.env`` files get no line. The lines are comments in the snippet, so a
candidate that copies its prompt copies nothing that runs. Values are parsed from the
snippet's own text; a value that was redacted, or whose key is named like a secret, is never
listed.
"""

from __future__ import annotations

import configparser
import csv
import io
import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = [
    "ConfigAccess",
    "RecordShape",
    "config_access",
    "csv_access",
    "record_access",
    "record_shape",
]

MAX_LEAVES = 10
"""Value lines under one snippet; more are counted, not listed."""
_VALUE_CHARS = 40
_REDACTED = "<redacted>"
_SECRET_KEY = re.compile(r"(?i)passw(?:or)?d|secret|api_?key|access_?key|private_?key|token")
"""Keys named like secrets (as :mod:`tools.project_map` redacts): their values are never listed."""

Key = str | int
Leaf = tuple[tuple[Key, ...], object]


def config_access(rel: str, text: str) -> ConfigAccess | None:
    """How to read config file ``rel`` (TOML, JSON, INI); None when unparsable or another kind."""
    suffix = PurePosixPath(rel).suffix.lower()
    path = json.dumps(rel, ensure_ascii=False)
    if suffix == ".toml":
        try:
            data: object = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return None
        opening: tuple[str, ...] = (
            "import tomllib",
            f'with open({path}, "rb") as f: cfg = tomllib.load(f)',
        )
        return ConfigAccess(opening, list(_leaves(data, ())), dotted=True)
    if suffix == ".json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return None
        opening = ("import json", f"with open({path}) as f: cfg = json.load(f)")
        return ConfigAccess(opening, list(_leaves(data, ())), dotted=False)
    if suffix in {".ini", ".cfg"}:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            return None
        leaves: list[Leaf] = [
            ((section, key), value)
            for section in parser.sections()
            for key, value in parser.items(section, raw=True)
            if key not in parser.defaults()
        ]
        opening = (
            "import configparser",
            "cfg = configparser.ConfigParser(interpolation=None)",
            f"cfg.read({path})  # every value a str",
        )
        return ConfigAccess(opening, leaves, dotted=False, strings=True)
    return None


class ConfigAccess:
    """A parsed config file's loading line and the key path of each value."""

    def __init__(
        self, opening: tuple[str, ...], leaves: list[Leaf], *, dotted: bool, strings: bool = False
    ) -> None:
        self.opening = opening
        self.leaves = [
            (keys, value)
            for keys, value in leaves
            if not _is_redacted(value)
            and not any(isinstance(key, str) and _SECRET_KEY.search(key) for key in keys)
        ]
        self.dotted = dotted
        """Section names are dotted key paths (TOML's ``[levels.bronze]``)."""
        self.strings = strings
        """Every value is a str (INI): numbers are shown converted."""

    def lines(self, within: str | None = None) -> list[str]:
        """Comment lines: the loading line, then up to :data:`MAX_LEAVES` values; [] if none.

        ``within`` is the name of the section a snippet shows (``"levels.bronze"``, an INI
        section, a JSON top-level key, ``"top"`` for a preamble): only its values are listed.
        """
        if within is None:
            shown = self.leaves
        elif within == "top":
            shown = [leaf for leaf in self.leaves if len(leaf[0]) == 1]
        else:
            parts = within.split(".") if self.dotted else [within]
            prefix = tuple(part.strip().strip("\"'") for part in parts)
            shown = [leaf for leaf in self.leaves if leaf[0][: len(prefix)] == prefix]
        if not shown:
            return []
        lines = ["# read in Python:", *(f"#   {line}" for line in self.opening)]
        for keys, value in shown[:MAX_LEAVES]:
            expression = _expression(keys)
            if self.strings and isinstance(value, str):
                lines.append(f"#   {_converted(expression, value)}")
            else:
                lines.append(f"#   {expression} -> {_shown(value)}")
        if len(shown) > MAX_LEAVES:
            lines.append(f"#   ... and {len(shown) - MAX_LEAVES} more values")
        return lines


def csv_access(rel: str, text: str, shape: RecordShape | None) -> list[str]:
    """The ``csv.DictReader`` line and one row's values, for a table with a header row.

    ``shape`` is the file's :func:`record_shape` (its separator; None: no table). The first
    line is a header when it has at least two fields, all distinct names without digits, the
    same count as most rows, none repeated below it in its column (a tag like ``BKG`` is a
    value), and some later row holds a digit (a header names its columns, not their values).
    A file opening with comments gets no line: ``DictReader`` would take the comment for the
    header.
    """
    if shape is None or PurePosixPath(rel).suffix.lower() not in {".csv", ".tsv", ".txt", ".psv"}:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or lines[0].lstrip().startswith("#"):
        return []
    delimiter = shape.sep
    rows = list(csv.reader(io.StringIO("\n".join(lines[:50])), delimiter=delimiter))
    header, body = rows[0], [row for row in rows[1:] if len(row) == len(rows[0])]
    names = [name.strip() for name in header]
    if (
        len(names) < 2
        or len(set(names)) < len(names)
        or not all(names)
        or any(c.isdigit() for c in "".join(names))  # values, not names (BKG;rm=12;...)
        or len(body) * 5 < (len(rows) - 1) * 4
        or any(name == cell.strip() for row in body for name, cell in zip(names, row, strict=True))
    ):
        return []
    sample = next((row for row in body if any(c.isdigit() for c in "".join(row))), None)
    if sample is None:
        return []
    option = "" if delimiter == "," else f", delimiter={json.dumps(delimiter)}"
    path = json.dumps(rel, ensure_ascii=False)
    opening = f'with open({path}, newline="") as f: rows = list(csv.DictReader(f{option}))'
    values = "; ".join(
        _converted(f"row[{json.dumps(name, ensure_ascii=False)}]", cell)
        for name, cell in zip(header, sample, strict=True)
    )
    return [
        "# read in Python:",
        "#   import csv",
        f"#   {opening}",
        f"#   one row (every value a str): {values}"[:600],
    ]


DELIMITERS = (";", ",", "\t", "|", "^")
"""Field separators a data file's records may use, the likelier first (not ``:``: times)."""
_MAX_KINDS = 8


@dataclass(frozen=True)
class RecordShape:
    """How a data file's records split into fields."""

    sep: str
    fields: list[str]
    """One typical record's fields."""
    every: bool
    """Every record has that many fields."""
    kinds: list[tuple[str, int]]
    """The first field's values and their counts, most common first, when it names a record's
    kind (a few values, one of them repeated, more than one value); else []."""
    comments: bool
    """Some lines start with ``#`` (not records)."""


def record_shape(text: str) -> RecordShape | None:
    """The records' separator and a typical record; None when no separator is regular.

    A separator counts when at least four in five records (lines neither empty nor comments)
    hold it, or all but two, at least three (a short file framed by a header and a trailer:
    ``TERM 2024-1``, five ``NOTE;MAT;S-1042;87``, ``END 5``); the record shown has the most
    common field count, the most common first field (the kind of a tagged record) and, if
    one does, a digit (a CSV header names its columns, not their values).
    """
    lines = text.splitlines()
    records = [line for line in lines if line.strip() and not line.startswith("#")]
    if len(records) < 2:
        return None
    for sep in DELIMITERS:
        counts = [line.count(sep) for line in records if sep in line]
        framed = len(counts) >= 3 and len(counts) >= len(records) - 2  # a header and a trailer
        if len(counts) * 5 < len(records) * 4 and not framed:
            continue
        common = max(sorted(set(counts)), key=counts.count)
        typical = [r for r in records if r.count(sep) == common]
        tags = [r.split(sep, 1)[0] for r in typical]  # a record's kind, as its first field
        kind = max(tags, key=tags.count)
        usual = [r for r, tag in zip(typical, tags, strict=True) if tag == kind]
        usual = usual if len(usual) > 1 else typical  # no kinds: every first field differs
        sample = next((r for r in usual if any(c.isdigit() for c in r)), usual[0])
        every = len(set(counts)) == 1 and len(counts) == len(records)
        firsts = [r.split(sep, 1)[0].strip() for r in records]
        tally = sorted(
            ((tag, firsts.count(tag)) for tag in set(firsts)), key=lambda item: (-item[1], item[0])
        )
        named = 1 < len(tally) <= _MAX_KINDS and tally[0][1] > 1
        named = named and all(tag and not any(c.isdigit() for c in tag) for tag, _ in tally)
        comments = any(line.startswith("#") for line in lines)
        return RecordShape(sep, sample.split(sep), every, tally if named else [], comments)
    return None


def record_access(shape: RecordShape | None) -> list[str]:
    """Comment lines that split one record and name each field; [] without a shape."""
    if shape is None:
        return []
    sep = json.dumps(shape.sep)
    split = f'fields = line.rstrip("\\n").split({sep})'
    skip = '  (skip lines starting with "#")' if shape.comments else ""
    values = "; ".join(
        _converted(f"fields[{i}]", field) for i, field in enumerate(shape.fields[:12])
    )
    lines = ["# read in Python, one line at a time:", f"#   {split}{skip}", f"#   {values}"[:600]]
    if shape.kinds:
        kinds = ", ".join(f"{tag!r} {count}" for tag, count in shape.kinds)
        lines.append(f"#   record kinds, fields[0]: {kinds}")
    if len(shape.fields) <= 12:
        parts = ", ".join(_written(field) for field in shape.fields)
        whole = shape.sep.join(shape.fields)
        lines.append(f"#   write one: {sep}.join([{parts}]) -> {whole!r}"[:600])
    return lines


def _written(value: str) -> str:
    """A field as code that writes it: ``str(450)`` for a whole number, else the text."""
    number = _number(value.strip())
    if isinstance(number, int) and str(number) == value:
        return f"str({number})"
    return json.dumps(value, ensure_ascii=False)


def _leaves(value: object, keys: tuple[Key, ...]) -> Iterator[Leaf]:
    """Every scalar's key path; a list of tables is shown by its first item and its length."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*keys, str(key)))
    elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        yield keys, _ListOf(len(value), [str(k) for k in value[0]])
        yield from _leaves(value[0], (*keys, 0))
    elif keys:  # a file that is one scalar or an empty table names no value
        yield keys, value


class _ListOf:
    """A list of tables, shown as its length and its first item's keys."""

    def __init__(self, count: int, keys: list[str]) -> None:
        self.text = f"a list of {count}, each with " + ", ".join(
            json.dumps(key, ensure_ascii=False) for key in keys[:8]
        )


def _expression(keys: tuple[Key, ...]) -> str:
    return "cfg" + "".join(
        f"[{key}]" if isinstance(key, int) else f"[{json.dumps(key, ensure_ascii=False)}]"
        for key in keys
    )


def _shown(value: object) -> str:
    if isinstance(value, _ListOf):
        return value.text
    text = repr(value)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 3] + "..."


def _converted(expression: str, value: str) -> str:
    """``int(expr) -> 36`` for a whole number, ``float(expr) -> 8.1`` for a decimal."""
    text = value.strip()
    number = _number(text)
    if isinstance(number, int) and str(number) != text.removeprefix("+"):
        number = None  # leading zeros: an id or a time ("0800"), kept as text
    if isinstance(number, int):
        return f"int({expression}) -> {number}"
    if isinstance(number, float):
        return f"float({expression}) -> {number!r}"
    return f"{expression} -> {_shown(value)}"


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if text.lower() not in {"nan", "inf", "-inf", "infinity"} else None


def _is_redacted(value: object) -> bool:
    return isinstance(value, str) and _REDACTED in value
