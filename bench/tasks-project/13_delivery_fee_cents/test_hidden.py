"""Hidden tests for delivery_fee_cents."""

from solution import delivery_fee_cents


def test_small_order_pays_fee() -> None:
    """A small order pays the flat fee."""
    assert delivery_fee_cents(1000) == 595


def test_just_below_threshold() -> None:
    """One cent below the threshold still pays."""
    assert delivery_fee_cents(4499) == 595


def test_at_threshold_is_free() -> None:
    """At the threshold delivery is free."""
    assert delivery_fee_cents(4500) == 0


def test_large_order_is_free() -> None:
    """A large order is delivered for free."""
    assert delivery_fee_cents(9000) == 0
    assert delivery_fee_cents(4800) == 0
