from collections.abc import Callable

from solution import invoice_number


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_padded_to_six_digits() -> None:
    assert invoice_number("INV", 1) == "INV-000001"
    assert invoice_number("INV", 123456) == "INV-123456"


def test_longer_numbers_in_full() -> None:
    assert invoice_number("INV", 9876543) == "INV-9876543"


def test_prefix_upper_case() -> None:
    assert invoice_number("acme", 77) == "ACME-000077"


def test_prefix_spaces_dropped() -> None:
    assert invoice_number("  Shop ", 5) == "SHOP-000005"


def test_bad_number_raises() -> None:
    assert raises(ValueError, invoice_number, "INV", 0)
    assert raises(ValueError, invoice_number, "INV", -4)
