"""Hidden tests for is_open."""

from solution import is_open


def test_weekday_early_opening() -> None:
    """Weekdays open early for the first flights."""
    assert is_open("2024-05-06T05:30") is True
    assert is_open("2024-05-06T05:29") is False
    assert is_open("2024-05-08T05:45") is True


def test_weekday_closing() -> None:
    """Closing time itself is closed."""
    assert is_open("2024-05-07T22:44") is True
    assert is_open("2024-05-07T22:45") is False


def test_friday_late() -> None:
    """Friday stays open later."""
    assert is_open("2024-05-10T23:00") is True
    assert is_open("2024-05-10T23:15") is False


def test_sunday_hours() -> None:
    """Sunday opens later and closes earlier."""
    assert is_open("2024-05-12T07:00") is False
    assert is_open("2024-05-12T07:15") is True
    assert is_open("2024-05-12T20:00") is False


def test_closure_days() -> None:
    """The branch is closed all day on its closure dates."""
    assert is_open("2024-12-25T12:00") is False
    assert is_open("2025-04-27T12:00") is False
    assert is_open("2024-12-26T12:00") is True
