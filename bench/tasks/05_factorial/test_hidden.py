from collections.abc import Callable

from solution import factorial


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_zero_and_one() -> None:
    assert factorial(0) == 1
    assert factorial(1) == 1


def test_small_values() -> None:
    assert factorial(5) == 120
    assert factorial(6) == 720


def test_larger_values() -> None:
    assert factorial(10) == 3628800
    assert factorial(20) == 2432902008176640000


def test_negative_raises() -> None:
    assert raises(ValueError, factorial, -1)
