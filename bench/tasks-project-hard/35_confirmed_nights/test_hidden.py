import os
import tempfile

from solution import confirmed_nights

EXPORT = "exports/bookings_2024-03.txt"


def write_export(text: str) -> str:
    """Write text to a temporary export file and return its path."""
    handle, path = tempfile.mkstemp(suffix=".txt")
    with os.fdopen(handle, "w", encoding="utf-8") as export:
        export.write(text)
    return path


def test_room_with_two_confirmed_bookings() -> None:
    assert confirmed_nights(EXPORT, "R07") == 8


def test_cancelled_and_requests_do_not_count() -> None:
    assert confirmed_nights(EXPORT, "R02") == 4


def test_no_show_does_not_count() -> None:
    assert confirmed_nights(EXPORT, "R11") == 0


def test_unknown_room() -> None:
    assert confirmed_nights(EXPORT, "R99") == 0


def test_other_export() -> None:
    path = write_export(
        "# export 2024-04-30T23:00 Seeblick PMS 5.2\n"
        "\n"
        "bk=1101 room=R01 in=20240402 nts=7 pax=2 guest=Hamilton st=CNF\n"
        "bk=1102 room=R10 in=20240403 nts=2 pax=1 guest=Ritchie st=CNF\n"
        "bk=1103 room=R01 in=20240410 nts=1 pax=1 guest=Wirth st=CNF\n"
        "bk=1104 room=R01 in=20240412 nts=3 pax=2 guest=Dijkstra st=OPT\n"
    )
    try:
        assert confirmed_nights(path, "R01") == 8
        assert confirmed_nights(path, "R10") == 2
    finally:
        os.remove(path)
