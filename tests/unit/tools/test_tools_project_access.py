"""Each config and table snippet ends with the Python that reads it, and that Python is right."""

from __future__ import annotations

import configparser
import csv
import json
import os
import tomllib
from pathlib import Path

import pytest

from tools.project_access import (
    MAX_LEAVES,
    config_access,
    csv_access,
    record_access,
    record_shape,
)
from tools.project_map import build_map

LOYALTY = """# Points per full step of cents spent.
[earning]
cents_per_point = 250

[levels.bronze]
multiplier = 1

[levels.gold]
multiplier = 3
"""

TAX = """; VAT rates in percent.
[vat]
country = CH
standard = 8.1
reduced = 2

[vat_2023]
standard = 7.7
"""

COUPONS = (
    '{"updated": "2024-06-01", "coupons": [{"code": "WELCOME", "percent_off": 15}, '
    '{"code": "STAFF30", "percent_off": 30}]}'
)

RATES = "currency;eur_per_unit;fixed_on\nEUR;1.0000;2024-05-01\nUSD;0.9130;2024-05-01\n"


def _run(lines: list[str], folder: Path) -> dict[str, tuple[object, str]]:
    """Run the reading lines in ``folder``: each shown expression -> (its value, as shown)."""
    assert lines[0] == "# read in Python:"
    scope: dict[str, object] = {}
    found: dict[str, tuple[object, str]] = {}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for line in lines[1:]:
            text = line.removeprefix("#   ")
            if text.startswith("one row"):
                rows = scope["rows"]
                assert isinstance(rows, list)
                scope["row"] = rows[0]
                parts = text.split(": ", 1)[1].split("; ")
            elif text.startswith("... and"):
                continue
            elif " -> " in text:
                parts = [text]
            else:
                exec(text, scope)  # the loading lines, as a solution would write them
                continue
            for part in parts:
                expression, shown = part.split(" -> ")
                found[expression] = (eval(expression, scope), shown)
        return found
    finally:
        os.chdir(cwd)


def _write(folder: Path, rel: str, text: str) -> None:
    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    (folder / rel).write_text(text)


def test_a_toml_file_is_read_with_tomllib_and_each_value_named_by_its_keys(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "conf/loyalty.toml", LOYALTY)
    access = config_access("conf/loyalty.toml", LOYALTY)
    assert access is not None
    lines = access.lines()
    assert lines[:3] == [
        "# read in Python:",
        "#   import tomllib",
        '#   with open("conf/loyalty.toml", "rb") as f: cfg = tomllib.load(f)',
    ]
    assert '#   cfg["levels"]["gold"]["multiplier"] -> 3' in lines
    found = _run(lines, tmp_path)
    assert len(found) == 3
    for value, shown in found.values():
        assert repr(value) == shown
    # a section's snippet lists only its own values; a preamble only top-level keys
    assert access.lines("levels.bronze")[3:] == ['#   cfg["levels"]["bronze"]["multiplier"] -> 1']
    assert access.lines("top") == []


def test_an_ini_file_s_numbers_are_shown_converted(tmp_path: Path) -> None:
    _write(tmp_path, "settings/tax.ini", TAX)
    access = config_access("settings/tax.ini", TAX)
    assert access is not None
    lines = access.lines()
    assert lines[3] == '#   cfg.read("settings/tax.ini")  # every value a str'
    assert '#   float(cfg["vat"]["standard"]) -> 8.1' in lines
    assert '#   int(cfg["vat"]["reduced"]) -> 2' in lines
    assert '#   cfg["vat"]["country"] -> \'CH\'' in lines
    for value, shown in _run(lines, tmp_path).values():
        assert repr(value) == shown
    assert access.lines("vat_2023")[4:] == ['#   float(cfg["vat_2023"]["standard"]) -> 7.7']
    parser = configparser.ConfigParser()
    parser.read_string(TAX)  # the file really is INI
    assert parser["vat"]["standard"] == "8.1"


def test_a_json_list_of_tables_is_shown_by_its_length_and_first_item(tmp_path: Path) -> None:
    _write(tmp_path, "promo/coupons.json", COUPONS)
    access = config_access("promo/coupons.json", COUPONS)
    assert access is not None
    lines = access.lines()
    assert '#   cfg["coupons"] -> a list of 2, each with "code", "percent_off"' in lines
    assert '#   cfg["coupons"][0]["percent_off"] -> 15' in lines
    found = _run(lines, tmp_path)
    assert found['cfg["coupons"][0]["code"]'] == ("WELCOME", "'WELCOME'")
    assert access.lines("coupons")[3] == lines[4]
    assert json.loads(COUPONS)["coupons"][1]["code"] == "STAFF30"


def test_unparsable_other_kinds_and_redacted_values_get_no_line() -> None:
    assert config_access("a.toml", "x = [") is None
    assert config_access("a.json", "{") is None
    assert config_access("a.ini", "no section = 1\n") is None
    assert config_access("a.yaml", "a: 1\n") is None
    assert config_access("a.env", "A=1\n") is None
    secret = config_access("db.toml", '[db]\npassword = "<redacted>"\nport = 5432\n')
    assert secret is not None
    assert secret.lines()[3:] == ['#   cfg["db"]["port"] -> 5432']
    unredacted = config_access("k.json", '{"api_key": "s3cr3t", "auth": {"Token": "t0k"}, "n": 1}')
    assert unredacted is not None  # one line of JSON: the map's line-based redaction missed it
    assert unredacted.lines()[3:] == ['#   cfg["n"] -> 1']
    empty = config_access("e.json", "{}")
    assert empty is not None
    assert empty.lines() == []
    scalar = config_access("n.json", "3")
    assert scalar is not None
    assert scalar.lines() == []


def test_many_values_are_counted_not_listed() -> None:
    text = "[a]\n" + "".join(f"k{i} = {i}\n" for i in range(MAX_LEAVES + 5))
    access = config_access("big.toml", text)
    assert access is not None
    lines = access.lines()
    assert len(lines) == 3 + MAX_LEAVES + 1
    assert lines[-1] == "#   ... and 5 more values"
    assert tomllib.loads(text)["a"]["k3"] == 3


def test_a_table_with_a_header_row_is_read_with_dictreader(tmp_path: Path) -> None:
    _write(tmp_path, "data/rates.csv", RATES)
    lines = csv_access("data/rates.csv", RATES, record_shape(RATES))
    assert lines[:3] == [
        "# read in Python:",
        "#   import csv",
        '#   with open("data/rates.csv", newline="") as f: '
        'rows = list(csv.DictReader(f, delimiter=";"))',
    ]
    found = _run(lines, tmp_path)
    assert found['float(row["eur_per_unit"])'] == (1.0, "1.0")
    assert found['row["currency"]'] == ("EUR", "'EUR'")
    rows = list(csv.DictReader(RATES.splitlines(), delimiter=";"))
    assert rows[1]["eur_per_unit"] == "0.9130"


@pytest.mark.parametrize(
    "text",
    [
        "# sensor log\ntime,value\n08:00,1\n",  # a comment head would be taken for the header
        "1,2,3\n4,5,6\n",  # no header: the first row holds numbers
        "a,b\nx,y\n",  # no row holds a digit
        "only\n1\n",  # one column
        "a,a\n1,2\n",  # names repeat
    ],
)
def test_tables_without_a_plain_header_get_no_line(text: str) -> None:
    assert csv_access("t.csv", text, record_shape(text)) == []


def test_a_log_file_is_not_a_table() -> None:
    log = "level,text\nINFO,started 1\n"
    assert csv_access("app.log", log, record_shape(log)) == []


def test_the_project_map_ends_config_and_table_snippets_with_their_reading(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "loyalty.toml", LOYALTY)
    _write(tmp_path, "data/rates.csv", RATES)
    _write(tmp_path, "notes.yaml", "a: 1\n")
    entries = {entry.path: entry for entry in build_map(tmp_path).entries}
    assert entries["loyalty.toml"].text.splitlines()[0] == "# loyalty.toml"
    assert '#   cfg["levels"]["gold"]["multiplier"] -> 3' in entries["loyalty.toml"].text
    assert "csv.DictReader" in entries["data/rates.csv"].text
    assert "read in Python" not in entries["notes.yaml"].text
    # the reading lines are shown, not ranked: their words (cfg, tomllib) find nothing
    assert "tomllib" not in entries["loyalty.toml"].words
    assert "cfg" not in entries["loyalty.toml"].words


def test_a_long_config_s_sections_each_list_their_own_values(tmp_path: Path) -> None:
    text = "".join(
        f'[zone_{i}]\nrate_cents = {i * 100}\nnote = "{"x" * 150}"\n\n' for i in range(12)
    )
    _write(tmp_path, "zones.toml", text)
    sections = {e.name: e.text for e in build_map(tmp_path).entries if e.path == "zones.toml"}
    assert len(sections) == 12
    assert sections["zone_3"].splitlines()[-2:] == [
        '#   cfg["zone_3"]["rate_cents"] -> 300',
        '#   cfg["zone_3"]["note"] -> \'' + "x" * 36 + "...",
    ]
    assert "zone_4" not in sections["zone_3"]


CIRCULATION = """# branch Altstadt
CKO|20240301|31000123|P-0088
CKO|20240301|31000456|P-0102
RNW|20240305|31000123|P-0088
CKI|20240306|31000456|P-0102
"""


def test_a_file_of_records_without_a_header_is_split_one_line_at_a_time() -> None:
    shape = record_shape(CIRCULATION)
    assert shape is not None
    lines = record_access(shape)
    assert lines[:2] == [
        "# read in Python, one line at a time:",
        '#   fields = line.rstrip("\\n").split("|")  (skip lines starting with "#")',
    ]
    assert lines[2] == (
        "#   fields[0] -> 'CKO'; int(fields[1]) -> 20240301; int(fields[2]) -> 31000123; "
        "fields[3] -> 'P-0088'"
    )
    assert lines[3] == "#   record kinds, fields[0]: 'CKO' 2, 'CKI' 1, 'RNW' 1"
    assert lines[4] == (
        '#   write one: "|".join(["CKO", str(20240301), str(31000123), "P-0088"])'
        " -> 'CKO|20240301|31000123|P-0088'"
    )
    # every expression shown gives its value on the record it was taken from
    line = "CKO|20240301|31000123|P-0088\n"
    scope: dict[str, object] = {"line": line}
    exec(lines[1].removeprefix("#   ").split("  (")[0], scope)
    for part in lines[2].removeprefix("#   ").split("; "):
        expression, shown = part.split(" -> ")
        assert repr(eval(expression, scope)) == shown
    # and the line written back is the record
    written, shown = lines[4].removeprefix("#   write one: ").split(" -> ")
    assert repr(eval(written)) == shown == repr(line.rstrip("\n"))


def test_a_short_file_framed_by_a_header_and_a_trailer_has_a_shape() -> None:
    report = "TERM 2024-1 Nord\nNOTE;MAT;S-1042;87\nNOTE;ENG;S-1042;74\nNOTE;MAT;S-1077;91\nEND 3\n"
    shape = record_shape(report)  # three of five lines hold ';': under four in five
    assert (
        shape is not None and shape.sep == ";" and shape.fields == ["NOTE", "MAT", "S-1042", "87"]
    )
    assert record_access(shape)[-1] == (
        '#   write one: ";".join(["NOTE", "MAT", "S-1042", str(87)]) -> \'NOTE;MAT;S-1042;87\''
    )
    # two lines of five are not enough, nor one of three
    assert record_shape("TERM 1\nNOTE;MAT;87\nNOTE;ENG;74\nEND 2\nbye\n") is None
    assert record_shape("a\nb;c\nd\n") is None


def test_ids_and_times_with_leading_zeros_stay_text() -> None:
    shape = record_shape("MSR;0800;21.4;0004711\nMSR;0815;-1.5;0004712\n")
    assert shape is not None and shape.kinds == []  # one kind only: nothing to tell apart
    assert record_access(shape)[2] == (
        "#   fields[0] -> 'MSR'; fields[1] -> '0800'; float(fields[2]) -> 21.4; "
        "fields[3] -> '0004711'"
    )


def test_tagged_records_are_not_a_header_and_prose_has_no_shape() -> None:
    bookings = "BKG;rm=12;arr=20240501\nBKG;rm=04;arr=20240502\n"
    assert csv_access("bookings.txt", bookings, record_shape(bookings)) == []
    assert record_shape(bookings) is not None
    assert record_shape("Dear all,\nthe shop opens at nine.\n") is None
    assert record_access(None) == []
