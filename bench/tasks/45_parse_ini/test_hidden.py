from collections.abc import Callable

from solution import parse_ini


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_sections_and_keys() -> None:
    text = "[db]\nhost = local\nport=5432\n[web]\n  root =  /srv  \n"
    assert parse_ini(text) == {"db": {"host": "local", "port": "5432"}, "web": {"root": "/srv"}}


def test_keys_before_any_section_and_empty_sections() -> None:
    assert parse_ini("debug = yes\n[empty]") == {"": {"debug": "yes"}, "empty": {}}
    assert parse_ini("[a]\n[b]\nx=1") == {"a": {}, "b": {"x": "1"}}


def test_comments_and_blank_lines_are_skipped() -> None:
    text = "# top\n\n[s]\n   ; note\nk = v\n   \n#k = w\n"
    assert parse_ini(text) == {"s": {"k": "v"}}
    assert parse_ini("") == {}


def test_split_at_first_equals_and_empty_value() -> None:
    assert parse_ini("[x]\nurl = a=b\nblank =") == {"x": {"url": "a=b", "blank": ""}}


def test_repeated_sections_and_keys_merge() -> None:
    text = "[s]\na=1\nb=2\n[t]\nc=3\n[s]\na=9"
    assert parse_ini(text) == {"s": {"a": "9", "b": "2"}, "t": {"c": "3"}}


def test_other_lines_raise() -> None:
    assert raises(ValueError, parse_ini, "[s]\njust some words")
    assert raises(ValueError, parse_ini, "[unclosed\nk=v")
