from collections.abc import Callable

from hr.errors import HRError, LeaveQuotaExceeded
from solution import remaining_leave


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_days_left_without_carry_over() -> None:
    assert remaining_leave(10, 5, 0) == 12


def test_whole_allowance_can_be_taken() -> None:
    assert remaining_leave(0, 27, 0) == 0


def test_carry_over_adds_days() -> None:
    assert remaining_leave(20, 3, 2) == 6


def test_carry_over_is_capped() -> None:
    assert remaining_leave(0, 32, 9) == 0
    assert remaining_leave(30, 1, 12) == 1


def test_over_quota_raises_project_error() -> None:
    assert raises(LeaveQuotaExceeded, remaining_leave, 20, 8, 0)
    assert raises(LeaveQuotaExceeded, remaining_leave, 0, 33, 9)


def test_error_is_an_hr_error() -> None:
    assert raises(HRError, remaining_leave, 27, 1, 0)
