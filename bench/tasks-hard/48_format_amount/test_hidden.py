from solution import format_amount


def test_small_amounts() -> None:
    assert format_amount(5) == "$0.05"
    assert format_amount(50) == "$0.50"
    assert format_amount(0) == "$0.00"


def test_whole_dollars() -> None:
    assert format_amount(100) == "$1.00"
    assert format_amount(99999) == "$999.99"


def test_thousands_separators() -> None:
    assert format_amount(123456) == "$1,234.56"
    assert format_amount(100000) == "$1,000.00"
    assert format_amount(123456789012) == "$1,234,567,890.12"


def test_negative_amounts() -> None:
    assert format_amount(-150) == "-$1.50"
    assert format_amount(-7) == "-$0.07"
    assert format_amount(-100000001) == "-$1,000,000.01"
