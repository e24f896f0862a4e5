from collections.abc import Callable

from solution import format_table_row


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_left_and_right() -> None:
    assert format_table_row(["a", "bb"], [3, 4], "lr") == "| a   |   bb |"


def test_centre_even_and_odd_padding() -> None:
    assert format_table_row(["ab"], [6], "c") == "|   ab   |"
    assert format_table_row(["ab"], [5], "c") == "|  ab   |"
    assert format_table_row(["abc"], [4], "c") == "| abc  |"


def test_exact_fit_is_kept() -> None:
    assert format_table_row(["total"], [5], "r") == "| total |"


def test_long_cells_are_cut() -> None:
    assert format_table_row(["abcdef"], [4], "l") == "| abc~ |"
    assert format_table_row(["abcdef", "xy"], [1, 2], "rc") == "| ~ | xy |"


def test_three_columns() -> None:
    row = format_table_row(["7", "apples", "1.25"], [3, 8, 6], "rlr")
    assert row == "|   7 | apples   |   1.25 |"


def test_bad_arguments_raise() -> None:
    assert raises(ValueError, format_table_row, ["a", "b"], [3], "ll")
    assert raises(ValueError, format_table_row, ["a"], [3], "lr")
    assert raises(ValueError, format_table_row, ["a"], [0], "l")
    assert raises(ValueError, format_table_row, ["a"], [3], "x")
