from collections.abc import Callable

from solution import cron_field_matches


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_star_and_numbers() -> None:
    assert cron_field_matches("*", 0) is True
    assert cron_field_matches("*", 59) is True
    assert cron_field_matches("7", 7) is True
    assert cron_field_matches("7", 17) is False


def test_lists() -> None:
    assert cron_field_matches("1,15,30", 15) is True
    assert cron_field_matches("1,15,30", 16) is False


def test_ranges_are_inclusive() -> None:
    assert cron_field_matches("9-17", 9) is True
    assert cron_field_matches("9-17", 17) is True
    assert cron_field_matches("9-17", 18) is False
    assert cron_field_matches("9-17", 8) is False


def test_steps() -> None:
    assert cron_field_matches("*/20", 0) is True
    assert cron_field_matches("*/20", 40) is True
    assert cron_field_matches("*/20", 50) is False
    assert cron_field_matches("10-30/10", 30) is True
    assert cron_field_matches("10-30/10", 40) is False
    assert cron_field_matches("1-9/3", 7) is True
    assert cron_field_matches("1-9/3", 6) is False


def test_mixed_parts() -> None:
    assert cron_field_matches("0,*/25,3-4", 4) is True
    assert cron_field_matches("0,*/25,3-4", 75) is True
    assert cron_field_matches("0,*/25,3-4", 26) is False


def test_bad_parts_raise() -> None:
    assert raises(ValueError, cron_field_matches, "*/0", 5)
    assert raises(ValueError, cron_field_matches, "mon", 1)
    assert raises(ValueError, cron_field_matches, "1,,2", 1)
    assert raises(ValueError, cron_field_matches, "5-", 5)
    assert raises(ValueError, cron_field_matches, "9-3", 4)
    assert raises(ValueError, cron_field_matches, "1,9-3", 1)
