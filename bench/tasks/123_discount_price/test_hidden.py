from collections.abc import Callable

from solution import discount_price


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_even_discount() -> None:
    assert discount_price(4000, 50) == 2000
    assert discount_price(1000, 15) == 850


def test_discount_rounds_down() -> None:
    assert discount_price(333, 33) == 224
    assert discount_price(1, 50) == 1


def test_no_discount_and_free() -> None:
    assert discount_price(1999, 0) == 1999
    assert discount_price(700, 100) == 0


def test_zero_price() -> None:
    assert discount_price(0, 30) == 0


def test_percent_out_of_range_raises() -> None:
    assert raises(ValueError, discount_price, 500, 101)
    assert raises(ValueError, discount_price, 500, -5)
