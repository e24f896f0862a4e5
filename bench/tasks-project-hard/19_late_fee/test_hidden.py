"""Hidden tests for late_fee."""

from solution import late_fee


def test_on_time_book() -> None:
    """A book returned on its due date costs nothing."""
    assert late_fee("book", "2024-03-01", "2024-03-29") == 0
    assert late_fee("book", "2024-03-01", "2024-03-10") == 0


def test_late_book() -> None:
    """A book three days late."""
    assert late_fee("book", "2024-03-01", "2024-04-01") == 45


def test_late_dvd() -> None:
    """DVDs have a short loan and a high daily fine."""
    assert late_fee("dvd", "2024-06-01", "2024-06-11") == 0
    assert late_fee("dvd", "2024-06-01", "2024-06-13") == 150


def test_fine_is_capped() -> None:
    """The fine never exceeds the item type's maximum."""
    assert late_fee("dvd", "2024-01-01", "2024-04-10") == 1500
    assert late_fee("book", "2023-01-01", "2024-01-01") == 600
    assert late_fee("magazine", "2024-01-01", "2024-06-01") == 300


def test_game() -> None:
    """Games are lent for a week."""
    assert late_fee("game", "2024-02-26", "2024-03-05") == 50
