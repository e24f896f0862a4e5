from solution import parse_key_values


def test_simple_pairs() -> None:
    assert parse_key_values("a=1;b=2") == {"a": "1", "b": "2"}


def test_strips_whitespace() -> None:
    assert parse_key_values(" a = 1 ;  b = two words ") == {"a": "1", "b": "two words"}


def test_splits_at_first_equals() -> None:
    assert parse_key_values("url=x=y;n=1") == {"url": "x=y", "n": "1"}


def test_skips_empty_and_invalid_pieces() -> None:
    assert parse_key_values("a=1;;b=2;") == {"a": "1", "b": "2"}
    assert parse_key_values("a=1;junk;b=2") == {"a": "1", "b": "2"}


def test_empty_value_and_repeated_key() -> None:
    assert parse_key_values("a=") == {"a": ""}
    assert parse_key_values("a=1;a=2") == {"a": "2"}


def test_empty_text() -> None:
    assert parse_key_values("") == {}
