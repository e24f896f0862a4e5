from collections.abc import Callable

from solution import tokenize


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_examples() -> None:
    assert tokenize("2*(3 - 4.5)") == ["2", "*", "(", "3", "-", "4.5", ")"]
    assert tokenize("-2 - -3") == ["-2", "-", "-3"]


def test_numbers_and_operators() -> None:
    assert tokenize("12+345") == ["12", "+", "345"]
    assert tokenize("0.25 / 10") == ["0.25", "/", "10"]
    assert tokenize("  7  ") == ["7"]


def test_empty_and_blank() -> None:
    assert tokenize("") == []
    assert tokenize("   ") == []


def test_negative_numbers() -> None:
    assert tokenize("-7") == ["-7"]
    assert tokenize("-1.5") == ["-1.5"]
    assert tokenize("(-1)") == ["(", "-1", ")"]
    assert tokenize("3 * -4") == ["3", "*", "-4"]
    assert tokenize("3--2") == ["3", "-", "-2"]


def test_minus_operator() -> None:
    assert tokenize("3-4") == ["3", "-", "4"]
    assert tokenize("3 -4") == ["3", "-", "4"]
    assert tokenize("(1)-2") == ["(", "1", ")", "-", "2"]
    assert tokenize("- 3") == ["-", "3"]
    assert tokenize("--3") == ["-", "-3"]
    assert tokenize("-(2)") == ["-", "(", "2", ")"]


def test_order_is_not_checked() -> None:
    assert tokenize("2 3") == ["2", "3"]
    assert tokenize(")(+") == [")", "(", "+"]


def test_bad_characters_raise() -> None:
    assert raises(ValueError, tokenize, "2 ^ 3")
    assert raises(ValueError, tokenize, "x+1")
    assert raises(ValueError, tokenize, "1,5")


def test_badly_formed_numbers_raise() -> None:
    assert raises(ValueError, tokenize, "1.")
    assert raises(ValueError, tokenize, ".5")
    assert raises(ValueError, tokenize, "1.2.3")
    assert raises(ValueError, tokenize, "2*3.")
