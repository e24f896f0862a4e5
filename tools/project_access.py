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

and a CSV file with a header row ends with its ``csv.DictReader`` line and one row's fields.
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
from pathlib import PurePosixPath

__all__ = ["ConfigAccess", "config_access", "csv_access"]

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


def csv_access(rel: str, text: str) -> list[str]:
    """The ``csv.DictReader`` line and one row's values, for a table with a header row.

    The first line is a header when it has at least two fields, all distinct names without
    digits-only cells, the same count as most rows, and some later row holds a digit (a
    header names its columns, not their values). A file opening with comments gets no line:
    ``DictReader`` would take the comment for the header.
    """
    if PurePosixPath(rel).suffix.lower() not in {".csv", ".tsv", ".txt", ".psv"}:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or lines[0].lstrip().startswith("#"):
        return []
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters=",;\t|")
    except csv.Error:
        return []
    delimiter = dialect.delimiter
    rows = list(csv.reader(io.StringIO("\n".join(lines[:50])), delimiter=delimiter))
    header, body = rows[0], [row for row in rows[1:] if len(row) == len(rows[0])]
    names = [name.strip() for name in header]
    if (
        len(names) < 2
        or len(set(names)) < len(names)
        or not all(names)
        or any(_number(name) is not None for name in names)
        or len(body) * 5 < (len(rows) - 1) * 4
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
    number = _number(value.strip())
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
