from collections.abc import Callable

from solution import int_to_roman


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_small_numbers() -> None:
    assert int_to_roman(1) == "I"
    assert int_to_roman(3) == "III"
    assert int_to_roman(8) == "VIII"


def test_subtractive_notation() -> None:
    assert int_to_roman(4) == "IV"
    assert int_to_roman(9) == "IX"
    assert int_to_roman(40) == "XL"
    assert int_to_roman(90) == "XC"
    assert int_to_roman(400) == "CD"
    assert int_to_roman(900) == "CM"


def test_mixed() -> None:
    assert int_to_roman(58) == "LVIII"
    assert int_to_roman(1994) == "MCMXCIV"
    assert int_to_roman(3999) == "MMMCMXCIX"


def test_out_of_range_raises() -> None:
    assert raises(ValueError, int_to_roman, 0)
    assert raises(ValueError, int_to_roman, 4000)
    assert raises(ValueError, int_to_roman, -5)
