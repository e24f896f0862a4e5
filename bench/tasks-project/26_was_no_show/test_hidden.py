from solution import was_no_show

DB = "clinic.db"


def test_example_visit() -> None:
    assert was_no_show(DB, 3) is True


def test_other_no_shows() -> None:
    assert was_no_show(DB, 6) is True
    assert was_no_show(DB, 19) is True


def test_completed_visit() -> None:
    assert was_no_show(DB, 1) is False


def test_called_off_visit() -> None:
    assert was_no_show(DB, 4) is False


def test_booked_visit() -> None:
    assert was_no_show(DB, 16) is False
