import os
import tempfile

from solution import total_minutes


def test_example_employee() -> None:
    assert total_minutes("exports/clock_2024-W11.txt", "E023") == 960


def test_three_bookings() -> None:
    assert total_minutes("exports/clock_2024-W11.txt", "E017") == 765


def test_other_employee() -> None:
    assert total_minutes("exports/clock_2024-W11.txt", "E031") == 505


def test_other_export() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "clock.txt")
        with open(path, "w", encoding="utf-8") as export:
            export.write("TB|20240318|E017|PRJ-7|60\n")
            export.write("TB|20240318|E040|PRJ-2|120\n")
            export.write("TB|20240319|E017|PRJ-9|45\n")
        assert total_minutes(path, "E017") == 105
        assert total_minutes(path, "E040") == 120
