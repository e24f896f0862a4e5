from solution import completed_visits

DB = "clinic.db"


def test_called_off_and_booked_visits_do_not_count() -> None:
    assert completed_visits(DB, 501) == 3


def test_no_show_does_not_count() -> None:
    assert completed_visits(DB, 502) == 1
    assert completed_visits(DB, 503) == 2


def test_only_booked_gives_zero() -> None:
    assert completed_visits(DB, 509) == 0


def test_only_no_show_gives_zero() -> None:
    assert completed_visits(DB, 508) == 0


def test_unknown_patient_gives_zero() -> None:
    assert completed_visits(DB, 999) == 0


def test_returns_int() -> None:
    assert type(completed_visits(DB, 505)) is int
    assert completed_visits(DB, 505) == 1
