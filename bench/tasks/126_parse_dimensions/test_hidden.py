from collections.abc import Callable

from solution import parse_dimensions


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_units() -> None:
    assert parse_dimensions("12 x 3 x 4 mm") == (12, 3, 4)
    assert parse_dimensions("12 x 3 x 4 cm") == (120, 30, 40)
    assert parse_dimensions("2 x 1 x 3 m") == (2000, 1000, 3000)


def test_no_unit_means_millimetres() -> None:
    assert parse_dimensions("100x50x7") == (100, 50, 7)


def test_spacing_and_separators() -> None:
    assert parse_dimensions("10X 20 x30cm") == (100, 200, 300)
    assert parse_dimensions("  10   x   20   x   30   mm  ") == (10, 20, 30)


def test_decimals_are_rounded() -> None:
    assert parse_dimensions("2.54 x 1.27 x 0.33 cm") == (25, 13, 3)
    assert parse_dimensions("0.3333x0.5x1.25 m") == (333, 500, 1250)


def test_wrong_count_or_unit_raises() -> None:
    assert raises(ValueError, parse_dimensions, "30 x 20 cm")
    assert raises(ValueError, parse_dimensions, "3 x 2 x 1 x 1")
    assert raises(ValueError, parse_dimensions, "3 x 2 x 1 km")
    assert raises(ValueError, parse_dimensions, "3 x 2 x 1 CM")
    assert raises(ValueError, parse_dimensions, "")


def test_bad_numbers_raise() -> None:
    assert raises(ValueError, parse_dimensions, "-3 x 2 x 1")
    assert raises(ValueError, parse_dimensions, "30 x 0 x 10")
    assert raises(ValueError, parse_dimensions, ".5 x 2 x 1 cm")
    assert raises(ValueError, parse_dimensions, "0.04 x 2 x 1 cm")
