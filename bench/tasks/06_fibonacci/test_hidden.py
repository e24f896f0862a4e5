from collections.abc import Callable

from solution import fibonacci


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_first_values() -> None:
    assert [fibonacci(n) for n in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]


def test_tenth_and_twentieth() -> None:
    assert fibonacci(10) == 55
    assert fibonacci(20) == 6765


def test_large_n_is_fast() -> None:
    assert fibonacci(90) == 2880067194370816120


def test_negative_raises() -> None:
    assert raises(ValueError, fibonacci, -1)
