"""Hidden tests for stay_price_cents."""

from solution import stay_price_cents


def test_single_one_night() -> None:
    """One night in a single room."""
    assert stay_price_cents("single", 1) == 7210


def test_double_three_nights() -> None:
    """Three nights in a double room."""
    assert stay_price_cents("double", 3) == 29130


def test_family_two_nights() -> None:
    """Two nights in a family room."""
    assert stay_price_cents("family", 2) == 28220


def test_single_week() -> None:
    """A week in a single room."""
    assert stay_price_cents("single", 7) == 50470
