import os
import tempfile

from solution import net_cents


def write_export(text: str) -> str:
    """Write text to a temporary export file and return its path."""
    handle, path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(handle, "w", encoding="utf-8") as export:
        export.write(text)
    return path


def test_january() -> None:
    assert net_cents("bank/umsaetze_2024-01.csv") == 205307


def test_february() -> None:
    assert net_cents("bank/umsaetze_2024-02.csv") == 102652


def test_only_payments() -> None:
    path = write_export(
        "KOPF;DE12 5001 0517 0648 4898 90;01.03.2024;31.03.2024;EUR\n"
        "SALDO;01.03.2024;5.389,99\n"
        "BUCH;04.03.2024;Buchhandlung am Rathaus;23,95-\n"
        "BUCH;11.03.2024;Kino Lichtspiele;0,05-\n"
        "BUCH;20.03.2024;Autohaus Nordholz;12.345,67-\n"
        "SALDO;31.03.2024;6.979,68-\n"
    )
    try:
        assert net_cents(path) == -1236967
    finally:
        os.remove(path)


def test_no_bookings() -> None:
    path = write_export(
        "KOPF;DE12 5001 0517 0648 4898 90;01.04.2024;30.04.2024;EUR\n"
        "SALDO;01.04.2024;6.979,68-\n"
        "SALDO;30.04.2024;6.979,68-\n"
    )
    try:
        assert net_cents(path) == 0
    finally:
        os.remove(path)
