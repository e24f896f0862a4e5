from solution import late_fee


def test_daily_fee() -> None:
    assert late_fee(1, 30, 1000) == 30
    assert late_fee(7, 30, 1000) == 210


def test_capped() -> None:
    assert late_fee(100, 30, 1000) == 1000
    assert late_fee(20, 50, 1000) == 1000


def test_on_time_or_early() -> None:
    assert late_fee(0, 30, 1000) == 0
    assert late_fee(-5, 30, 1000) == 0


def test_zero_cap() -> None:
    assert late_fee(3, 30, 0) == 0


def test_zero_daily_fee() -> None:
    assert late_fee(9, 0, 500) == 0
