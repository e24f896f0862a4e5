"""Hidden tests for order_total."""

from solution import order_total


def test_no_discount_below_first_tier() -> None:
    """Small quantities pay full price."""
    assert order_total(250, 1) == 250
    assert order_total(250, 11) == 2750


def test_first_tier() -> None:
    """From twelve items on."""
    assert order_total(250, 12) == 2880
    assert order_total(250, 35) == 8400


def test_middle_tiers() -> None:
    """The highest reached tier applies."""
    assert order_total(199, 36) == 6519
    assert order_total(1000, 100) == 86500


def test_top_tier() -> None:
    """The top tier."""
    assert order_total(500, 144) == 57600
    assert order_total(89, 1000) == 71200


def test_rounding_halves_up() -> None:
    """Half cents round up."""
    assert order_total(25, 38) == 865
    assert order_total(4, 75) == 260


def test_zero_quantity() -> None:
    """Nothing ordered costs nothing."""
    assert order_total(999, 0) == 0
