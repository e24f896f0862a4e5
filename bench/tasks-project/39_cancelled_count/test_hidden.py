import os
import tempfile

from solution import cancelled_count


def test_example_day() -> None:
    assert cancelled_count("agenda/2024-04-08.txt") == 2


def test_next_day() -> None:
    assert cancelled_count("agenda/2024-04-09.txt") == 1


def test_day_without_cancellations() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "2024-04-10.txt")
        with open(path, "w", encoding="utf-8") as agenda:
            agenda.write("APT|20240410|0800|P0012345|DRK|ERL\n")
            agenda.write("APT|20240410|0815|P0012346|DRK|NEA\n")
        assert cancelled_count(path) == 0


def test_busy_day() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "2024-04-11.txt")
        with open(path, "w", encoding="utf-8") as agenda:
            for minute in range(0, 60, 15):
                agenda.write(f"APT|20240411|08{minute:02d}|P00123{minute:02d}|SLZ|STO\n")
            agenda.write("APT|20240411|0900|P0012399|SLZ|OFF\n")
        assert cancelled_count(path) == 4
