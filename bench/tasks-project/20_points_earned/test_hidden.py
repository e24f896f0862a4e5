"""Hidden tests for points_earned."""

from solution import points_earned


def test_bronze() -> None:
    """The base level earns the plain points."""
    assert points_earned(1000, "bronze") == 4


def test_partial_step_earns_nothing() -> None:
    """Only full steps count."""
    assert points_earned(1249, "bronze") == 4
    assert points_earned(249, "gold") == 0


def test_silver() -> None:
    """Silver doubles the points."""
    assert points_earned(1249, "silver") == 8
    assert points_earned(10000, "silver") == 80


def test_gold() -> None:
    """Gold triples the points."""
    assert points_earned(250, "gold") == 3
    assert points_earned(2600, "gold") == 30
