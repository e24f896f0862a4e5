from collections.abc import Callable

from solution import split_bill


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_even_split() -> None:
    assert split_bill(90, 3) == [30, 30, 30]
    assert split_bill(5, 1) == [5]


def test_remainder_goes_to_the_first_shares() -> None:
    assert split_bill(100, 3) == [34, 33, 33]
    assert split_bill(1001, 4) == [251, 250, 250, 250]
    assert split_bill(11, 4) == [3, 3, 3, 2]


def test_fewer_cents_than_people() -> None:
    assert split_bill(2, 4) == [1, 1, 0, 0]
    assert split_bill(0, 2) == [0, 0]


def test_shares_add_up() -> None:
    shares = split_bill(12345, 7)
    assert sum(shares) == 12345
    assert len(shares) == 7
    assert max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)


def test_invalid_arguments_raise() -> None:
    assert raises(ValueError, split_bill, 100, 0)
    assert raises(ValueError, split_bill, 100, -2)
    assert raises(ValueError, split_bill, -1, 3)
