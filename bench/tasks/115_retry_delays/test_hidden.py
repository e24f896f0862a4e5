from solution import retry_delays


def test_doubling() -> None:
    assert retry_delays(2, 4, 1000) == [2, 4, 8, 16]


def test_capped() -> None:
    assert retry_delays(1, 8, 30) == [1, 2, 4, 8, 16, 30, 30, 30]
    assert retry_delays(10, 3, 40) == [10, 20, 40]


def test_base_above_cap() -> None:
    assert retry_delays(50, 2, 30) == [30, 30]


def test_no_attempts() -> None:
    assert retry_delays(5, 0, 60) == []


def test_zero_base() -> None:
    assert retry_delays(0, 4, 10) == [0, 0, 0, 0]


def test_one_attempt() -> None:
    assert retry_delays(7, 1, 60) == [7]
