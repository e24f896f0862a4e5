import os
import tempfile

from solution import statement_total


def test_march() -> None:
    assert statement_total("bank/2024-03.csv") == 155151


def test_april() -> None:
    assert statement_total("bank/2024-04.csv") == 146085


def test_only_payments() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "2024-05.csv")
        with open(path, "w", encoding="utf-8") as statement:
            statement.write("KOPF;DE12500105170648489890;01.05.2024;31.05.2024\n")
            statement.write("SALDO;01.05.2024;453546\n")
            statement.write("BUCH;03.05.2024;-2500;Baeckerei\n")
            statement.write("BUCH;04.05.2024;-799;Kiosk\n")
            statement.write("SALDO;31.05.2024;450247\n")
        assert statement_total(path) == -3299


def test_single_booking() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "2024-06.csv")
        with open(path, "w", encoding="utf-8") as statement:
            statement.write("SALDO;01.06.2024;450247\n")
            statement.write("BUCH;28.06.2024;250000;Gehalt Juni\n")
            statement.write("SALDO;30.06.2024;700247\n")
        assert statement_total(path) == 250000
