from solution import wait_times


def test_empty() -> None:
    assert wait_times([], 5) == []


def test_backlog_builds_up() -> None:
    assert wait_times([0, 1, 2], 3) == [0, 2, 4]
    assert wait_times([5, 5, 5], 2) == [0, 2, 4]


def test_no_waiting_when_far_apart() -> None:
    assert wait_times([0, 10], 3) == [0, 0]
    assert wait_times([4], 100) == [0]


def test_counter_idles_between_busy_spells() -> None:
    assert wait_times([0, 1, 10, 11], 5) == [0, 4, 0, 4]


def test_first_customer_after_time_zero() -> None:
    assert wait_times([7, 8, 9], 2) == [0, 1, 2]


def test_zero_service_time() -> None:
    assert wait_times([1, 1, 2], 0) == [0, 0, 0]
