from collections.abc import Callable

from solution import grade_letter


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_each_letter() -> None:
    assert grade_letter(95) == "A"
    assert grade_letter(85) == "B"
    assert grade_letter(75) == "C"
    assert grade_letter(65) == "D"
    assert grade_letter(30) == "F"


def test_boundaries() -> None:
    assert grade_letter(90) == "A"
    assert grade_letter(80) == "B"
    assert grade_letter(70) == "C"
    assert grade_letter(60) == "D"


def test_floats_just_below_a_boundary() -> None:
    assert grade_letter(89.5) == "B"
    assert grade_letter(59.9) == "F"


def test_extremes() -> None:
    assert grade_letter(100) == "A"
    assert grade_letter(0) == "F"


def test_out_of_range_raises() -> None:
    assert raises(ValueError, grade_letter, -1)
    assert raises(ValueError, grade_letter, 100.5)
