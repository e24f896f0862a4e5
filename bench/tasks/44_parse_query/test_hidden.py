from solution import parse_query


def test_simple_pairs() -> None:
    assert parse_query("a=1&b=2") == {"a": ["1"], "b": ["2"]}


def test_repeated_keys_keep_order_and_leading_question_mark() -> None:
    assert parse_query("?a=1&b=x+y&a=2") == {"a": ["1", "2"], "b": ["x y"]}
    assert parse_query("?tag=z&tag=a&tag=z") == {"tag": ["z", "a", "z"]}


def test_percent_escapes_are_decoded_after_splitting() -> None:
    assert parse_query("q=rock%20%26%20roll&x=%3D") == {"q": ["rock & roll"], "x": ["="]}
    assert parse_query("sum=1%2B1&my%20key=v") == {"sum": ["1+1"], "my key": ["v"]}


def test_split_at_first_equals() -> None:
    assert parse_query("expr=a=b") == {"expr": ["a=b"]}


def test_missing_or_empty_values() -> None:
    assert parse_query("flag&x=") == {"flag": [""], "x": [""]}


def test_empty_pieces_are_skipped() -> None:
    assert parse_query("a=1&&b=2&") == {"a": ["1"], "b": ["2"]}
    assert parse_query("") == {}
    assert parse_query("?") == {}
