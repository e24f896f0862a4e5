from solution import parking_fee_cents


def test_one_hour() -> None:
    assert parking_fee_cents(1) == 280


def test_three_hours() -> None:
    assert parking_fee_cents(3) == 840


def test_just_under_the_cap() -> None:
    assert parking_fee_cents(6) == 1680


def test_cap_reached() -> None:
    assert parking_fee_cents(7) == 1900


def test_whole_day() -> None:
    assert parking_fee_cents(24) == 1900
