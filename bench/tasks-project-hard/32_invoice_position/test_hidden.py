from solution import invoice_position


def test_simple_line() -> None:
    assert invoice_position(1, "ESP-250G", 2, 790) == "POS;1;ESP-250G;2;EUR 7.90;EUR 15.80"


def test_single_item() -> None:
    assert invoice_position(2, "FLT-100", 1, 325) == "POS;2;FLT-100;1;EUR 3.25;EUR 3.25"


def test_large_amount_has_no_thousands_separator() -> None:
    assert invoice_position(1, "GRD-PRO", 2, 124900) == "POS;1;GRD-PRO;2;EUR 1249.00;EUR 2498.00"


def test_cents_below_ten_and_below_one_euro() -> None:
    assert invoice_position(7, "STK-05", 3, 5) == "POS;7;STK-05;3;EUR 0.05;EUR 0.15"


def test_matches_the_existing_invoice() -> None:
    with open("invoices/INV-2024-0032.txt", encoding="utf-8") as invoice:
        lines = invoice.read().splitlines()
    assert invoice_position(2, "ESP-1KG", 3, 2690) == lines[2]
    assert invoice_position(3, "FLT-100", 10, 325) == lines[3]
