"""Hidden tests for to_euro_cents."""

from solution import to_euro_cents


def test_euro_unchanged() -> None:
    """Euros stay as they are."""
    assert to_euro_cents(500, "EUR") == 500


def test_dollar() -> None:
    """US dollars."""
    assert to_euro_cents(10000, "USD") == 9130


def test_pound() -> None:
    """Pounds sterling."""
    assert to_euro_cents(2000, "GBP") == 2337


def test_franc() -> None:
    """Swiss francs."""
    assert to_euro_cents(5000, "CHF") == 5120


def test_krona_rounded() -> None:
    """Swedish kronor, rounded to the nearest cent."""
    assert to_euro_cents(100000, "SEK") == 8620
    assert to_euro_cents(1234, "SEK") == 106
