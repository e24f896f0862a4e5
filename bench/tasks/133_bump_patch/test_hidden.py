from collections.abc import Callable

from solution import bump_patch


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_patch_plus_one() -> None:
    assert bump_patch("3.1.4") == "3.1.5"
    assert bump_patch("0.0.0") == "0.0.1"


def test_no_carry() -> None:
    assert bump_patch("1.2.9") == "1.2.10"
    assert bump_patch("9.9.99") == "9.9.100"


def test_major_and_minor_kept() -> None:
    assert bump_patch("12.30.7") == "12.30.8"


def test_spaces_ignored() -> None:
    assert bump_patch("  2.0.0 ") == "2.0.1"


def test_wrong_number_of_parts_raises() -> None:
    assert raises(ValueError, bump_patch, "1.4")
    assert raises(ValueError, bump_patch, "1.4.2.0")
    assert raises(ValueError, bump_patch, "")


def test_part_not_a_number_raises() -> None:
    assert raises(ValueError, bump_patch, "1.x.2")
    assert raises(ValueError, bump_patch, "1.2.")
