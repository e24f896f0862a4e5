from collections.abc import Callable

from solution import parse_size


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_each_unit() -> None:
    assert parse_size("512B") == 512
    assert parse_size("10KB") == 10240
    assert parse_size("3MB") == 3 * 1024 * 1024
    assert parse_size("2GB") == 2 * 1024**3


def test_any_case() -> None:
    assert parse_size("3 mb") == 3 * 1024 * 1024
    assert parse_size("1Kb") == 1024
    assert parse_size("7b") == 7


def test_spaces_between_and_around() -> None:
    assert parse_size("4 KB") == 4096
    assert parse_size("  1   GB  ") == 1024**3


def test_zero() -> None:
    assert parse_size("0MB") == 0


def test_malformed_raises() -> None:
    assert raises(ValueError, parse_size, "")
    assert raises(ValueError, parse_size, "10")
    assert raises(ValueError, parse_size, "KB")
    assert raises(ValueError, parse_size, "1.5MB")
    assert raises(ValueError, parse_size, "10TB")
