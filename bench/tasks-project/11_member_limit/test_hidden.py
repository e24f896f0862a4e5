"""Hidden tests for member_limit."""

from solution import member_limit


def test_starter() -> None:
    """The smallest plan allows three members."""
    assert member_limit("starter") == 3


def test_team() -> None:
    """The team plan."""
    assert member_limit("team") == 15


def test_business() -> None:
    """The business plan."""
    assert member_limit("business") == 60


def test_enterprise() -> None:
    """The largest plan."""
    assert member_limit("enterprise") == 400
