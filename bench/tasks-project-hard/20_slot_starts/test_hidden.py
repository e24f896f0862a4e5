"""Hidden tests for slot_starts."""

from solution import slot_starts


def test_monday_morning() -> None:
    """Monday: slots with a gap, the last one ends before closing."""
    assert slot_starts("mon") == [
        "08:40",
        "09:10",
        "09:40",
        "10:10",
        "10:40",
        "11:10",
        "11:40",
    ]


def test_last_slot_ends_exactly_at_closing() -> None:
    """Friday's last slot ends at closing time."""
    assert slot_starts("fri") == ["08:40", "09:10", "09:40", "10:10", "10:40", "11:10"]


def test_thursday_evening() -> None:
    """Thursday runs into the evening."""
    result = slot_starts("thu")
    assert result[0] == "13:00"
    assert result[-1] == "18:30"
    assert len(result) == 12


def test_closed_days() -> None:
    """Days without in-person hours have no slots, even with video hours."""
    assert slot_starts("sun") == []
    assert slot_starts("sat") == []


def test_tuesday_count() -> None:
    """Tuesday afternoon."""
    assert slot_starts("tue") == [
        "13:00",
        "13:30",
        "14:00",
        "14:30",
        "15:00",
        "15:30",
        "16:00",
        "16:30",
        "17:00",
    ]
