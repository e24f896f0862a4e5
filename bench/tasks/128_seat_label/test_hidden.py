from collections.abc import Callable

from solution import seat_label


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_first_rows() -> None:
    assert seat_label(1, 7) == "A7"
    assert seat_label(2, 1) == "B1"


def test_later_rows_and_big_seat_numbers() -> None:
    assert seat_label(10, 5) == "J5"
    assert seat_label(26, 105) == "Z105"


def test_no_leading_zeros() -> None:
    assert seat_label(4, 9) == "D9"


def test_bad_row_raises() -> None:
    assert raises(ValueError, seat_label, 0, 1)
    assert raises(ValueError, seat_label, 27, 1)
    assert raises(ValueError, seat_label, -1, 3)


def test_bad_seat_raises() -> None:
    assert raises(ValueError, seat_label, 1, 0)
    assert raises(ValueError, seat_label, 5, -2)
