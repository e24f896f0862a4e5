from solution import receipt_line


def test_short_name() -> None:
    assert receipt_line("Milch 1l", 180) == "Milch 1l....................1,80"


def test_longer_name() -> None:
    assert receipt_line("Alpkaese 250g", 890) == "Alpkaese 250g...............8,90"


def test_price_over_ten() -> None:
    assert receipt_line("Honig 500g", 1450) == "Honig 500g.................14,50"


def test_price_under_one() -> None:
    assert receipt_line("Tragtasche", 5) == "Tragtasche..................0,05"


def test_line_has_receipt_width() -> None:
    assert len(receipt_line("Bauernbrot", 520)) == 32
