"""Hidden tests for shipping_cost."""

from solution import shipping_cost


def raises(exc, fn, *args):
    """Return True if fn(*args) raises exc."""
    try:
        fn(*args)
    except exc:
        return True
    return False


def test_domestic_started_kilograms() -> None:
    """A domestic parcel pays base plus every started kilogram."""
    assert shipping_cost(2.3, "domestic", 2500) == 395 + 3 * 85


def test_whole_kilograms_not_rounded_up() -> None:
    """Exact kilograms are charged as they are."""
    assert shipping_cost(2.0, "eu", 1200) == 990 + 2 * 210


def test_world_light_parcel() -> None:
    """A light parcel still pays one started kilogram."""
    assert shipping_cost(0.4, "world", 3000) == 1890 + 460


def test_free_shipping_threshold_and_zones() -> None:
    """Free shipping from the threshold on, only in the listed zones."""
    assert shipping_cost(1.5, "domestic", 6000) == 0
    assert shipping_cost(4.1, "benelux", 9900) == 0
    assert shipping_cost(1.5, "domestic", 5999) == 395 + 2 * 85
    assert shipping_cost(1.0, "eu", 9000) == 990 + 210


def test_benelux_rate() -> None:
    """Benelux has its own rate."""
    assert shipping_cost(3.7, "benelux", 100) == 650 + 4 * 140


def test_unknown_zone() -> None:
    """An unknown zone raises ValueError."""
    assert raises(ValueError, shipping_cost, 1.0, "mars", 100)
