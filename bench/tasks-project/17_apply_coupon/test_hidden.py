"""Hidden tests for apply_coupon."""

from solution import apply_coupon


def test_welcome() -> None:
    """The first-order coupon."""
    assert apply_coupon(10000, "WELCOME") == 8500


def test_summer() -> None:
    """The summer campaign coupon."""
    assert apply_coupon(2000, "SUMMER24") == 1600


def test_staff() -> None:
    """The employees' coupon."""
    assert apply_coupon(5000, "STAFF30") == 3500


def test_school() -> None:
    """The back-to-school coupon."""
    assert apply_coupon(3000, "SCHOOL5") == 2850


def test_unknown_code() -> None:
    """A code that is not in the list changes nothing."""
    assert apply_coupon(4000, "FREESTUFF") == 4000
