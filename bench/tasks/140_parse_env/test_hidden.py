from collections.abc import Callable

from solution import parse_env


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_simple_settings() -> None:
    assert parse_env(["USER=app", "DEBUG=0"]) == {"USER": "app", "DEBUG": "0"}
    assert parse_env(["  _private_1 =  x y  "]) == {"_private_1": "x y"}


def test_blank_lines_and_comments_are_skipped() -> None:
    assert parse_env(["", "   ", "# A=1", "   # note", "B=2"]) == {"B": "2"}


def test_export_prefix() -> None:
    assert parse_env(["export PATH_X=/opt/bin", "  export  Y=1"]) == {
        "PATH_X": "/opt/bin",
        "Y": "1",
    }


def test_values_split_at_the_first_equals() -> None:
    assert parse_env(["URL=http://h/?a=b"]) == {"URL": "http://h/?a=b"}


def test_quotes() -> None:
    assert parse_env(['MSG="  hello  "']) == {"MSG": "  hello  "}
    assert parse_env(["Q='#'"]) == {"Q": "#"}
    assert parse_env(["""MIXED="it's'"""]) == {"MIXED": "\"it's'"}
    assert parse_env(['ONE="']) == {"ONE": '"'}


def test_comments_after_values() -> None:
    assert parse_env(["COLOR=#fff", "N=5 # five", "S=a  #b"]) == {
        "COLOR": "#fff",
        "N": "5",
        "S": "a",
    }


def test_later_settings_win_keeping_the_first_position() -> None:
    settings = parse_env(["A=1", "B=2", "A=3"])
    assert settings == {"A": "3", "B": "2"}
    assert list(settings) == ["A", "B"]


def test_bad_lines_raise() -> None:
    assert raises(ValueError, parse_env, ["JUST_A_WORD"])
    assert raises(ValueError, parse_env, ["1ABC=x"])
    assert raises(ValueError, parse_env, ["MY-KEY=x"])
    assert raises(ValueError, parse_env, ["=x"])
