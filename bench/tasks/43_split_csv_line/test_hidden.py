from collections.abc import Callable

from solution import split_csv_line


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_plain_fields_keep_spaces() -> None:
    assert split_csv_line("a,b,c") == ["a", "b", "c"]
    assert split_csv_line(" a , b") == [" a ", " b"]


def test_quoted_fields_may_hold_commas() -> None:
    assert split_csv_line('a,"b,c",d') == ["a", "b,c", "d"]
    assert split_csv_line('"x, y, z"') == ["x, y, z"]


def test_doubled_quotes_inside_quotes() -> None:
    assert split_csv_line('x,,"say ""hi"""') == ["x", "", 'say "hi"']
    assert split_csv_line('"""",""') == ['"', ""]


def test_quote_inside_unquoted_field_is_kept() -> None:
    assert split_csv_line('5" pipe,ok') == ['5" pipe', "ok"]


def test_empty_fields() -> None:
    assert split_csv_line("") == [""]
    assert split_csv_line("a,") == ["a", ""]
    assert split_csv_line(",,") == ["", "", ""]


def test_unclosed_quote_raises() -> None:
    assert raises(ValueError, split_csv_line, '"abc')
    assert raises(ValueError, split_csv_line, 'a,"b,c')
