from collections.abc import Callable

from solution import hex_to_rgb


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_six_digits() -> None:
    assert hex_to_rgb("#ff8000") == (255, 128, 0)
    assert hex_to_rgb("#000000") == (0, 0, 0)
    assert hex_to_rgb("#0a1b2c") == (10, 27, 44)


def test_three_digit_shorthand() -> None:
    assert hex_to_rgb("#fa0") == (255, 170, 0)
    assert hex_to_rgb("#123") == (17, 34, 51)


def test_upper_and_mixed_case() -> None:
    assert hex_to_rgb("#FFFFFF") == (255, 255, 255)
    assert hex_to_rgb("#aBcDeF") == (171, 205, 239)


def test_missing_hash_raises() -> None:
    assert raises(ValueError, hex_to_rgb, "ff8000")


def test_wrong_length_raises() -> None:
    assert raises(ValueError, hex_to_rgb, "#ff80")
    assert raises(ValueError, hex_to_rgb, "#")
    assert raises(ValueError, hex_to_rgb, "")


def test_non_hex_character_raises() -> None:
    assert raises(ValueError, hex_to_rgb, "#12345g")
    assert raises(ValueError, hex_to_rgb, "#xyz")
