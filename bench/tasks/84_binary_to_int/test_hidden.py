from collections.abc import Callable

from solution import binary_to_int


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_small_values() -> None:
    assert binary_to_int("0") == 0
    assert binary_to_int("1") == 1
    assert binary_to_int("10") == 2
    assert binary_to_int("1011") == 11


def test_leading_zeros() -> None:
    assert binary_to_int("0011") == 3
    assert binary_to_int("0000") == 0


def test_larger_values() -> None:
    assert binary_to_int("11111111") == 255
    assert binary_to_int("1" + "0" * 20) == 2**20


def test_empty_raises() -> None:
    assert raises(ValueError, binary_to_int, "")


def test_other_characters_raise() -> None:
    assert raises(ValueError, binary_to_int, "102")
    assert raises(ValueError, binary_to_int, "abc")
    assert raises(ValueError, binary_to_int, " 101")
    assert raises(ValueError, binary_to_int, "0b101")
    assert raises(ValueError, binary_to_int, "1_0")
