from collections.abc import Callable

from solution import parse_money


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_whole_dollars() -> None:
    assert parse_money("5") == 500
    assert parse_money("$0") == 0
    assert parse_money("$42") == 4200


def test_cents() -> None:
    assert parse_money("3.07") == 307
    assert parse_money("3.7") == 370
    assert parse_money("$0.99") == 99


def test_thousands_separators() -> None:
    assert parse_money("$12,345,678.90") == 1234567890
    assert parse_money("999,999") == 99999900


def test_negative_amounts() -> None:
    assert parse_money("-12.5") == -1250
    assert parse_money("  -$1,000  ") == -100000


def test_bad_commas_raise() -> None:
    assert raises(ValueError, parse_money, "12,34")
    assert raises(ValueError, parse_money, "1234,567")
    assert raises(ValueError, parse_money, ",123")
    assert raises(ValueError, parse_money, "1,234,56")


def test_other_bad_text_raises() -> None:
    for text in ["", "$", ".50", "1.234", "$-5", "1 000", "5 USD", "5.", "--5", "+5"]:
        assert raises(ValueError, parse_money, text), text
