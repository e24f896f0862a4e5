import math
import os
import tempfile

from solution import hours_by_employee


def write_export(text: str) -> str:
    """Write text to a temporary export file and return its path."""
    handle, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(handle, "w", encoding="utf-8") as export:
        export.write(text)
    return path


def close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    """Whether two dicts have the same keys in order and close values."""
    return list(actual) == list(expected) and all(
        math.isclose(actual[key], expected[key]) for key in expected
    )


def test_march_export() -> None:
    result = hours_by_employee("exports/hours_2024-03.csv")
    assert close(result, {"E017": 15.25, "E004": 15.25, "E021": 8.33})


def test_one_booking() -> None:
    path = write_export("20240402,PRJ-1,E100,90\n")
    try:
        assert close(hours_by_employee(path), {"E100": 1.5})
    finally:
        os.remove(path)


def test_order_of_first_booking() -> None:
    path = write_export("20240402,PRJ-1,E200,60\n20240402,PRJ-1,E100,30\n20240403,PRJ-4,E200,20\n")
    try:
        assert close(hours_by_employee(path), {"E200": 1.33, "E100": 0.5})
    finally:
        os.remove(path)


def test_empty_file() -> None:
    path = write_export("")
    try:
        assert hours_by_employee(path) == {}
    finally:
        os.remove(path)
