from solution import parse_query_string


def test_simple_pairs() -> None:
    assert parse_query_string("a=1&b=two") == {"a": ["1"], "b": ["two"]}
    assert parse_query_string("?page=3") == {"page": ["3"]}


def test_repeated_keys_keep_their_order() -> None:
    assert parse_query_string("t=b&t=a&u=1&t=c") == {"t": ["b", "a", "c"], "u": ["1"]}


def test_keys_without_values_and_empty_values() -> None:
    assert parse_query_string("debug&x=") == {"debug": [""], "x": [""]}


def test_empty_pieces_are_skipped() -> None:
    assert parse_query_string("&&a=1&&") == {"a": ["1"]}
    assert parse_query_string("?") == {}


def test_value_splits_at_the_first_equals_only() -> None:
    assert parse_query_string("expr=a=b") == {"expr": ["a=b"]}


def test_decoding() -> None:
    assert parse_query_string("name=Jane+Doe%21") == {"name": ["Jane Doe!"]}
    assert parse_query_string("sum=1%2b1&q=a%26b") == {"sum": ["1+1"], "q": ["a&b"]}
    assert parse_query_string("my+key=100%&p=%zz") == {"my key": ["100%"], "p": ["%zz"]}
