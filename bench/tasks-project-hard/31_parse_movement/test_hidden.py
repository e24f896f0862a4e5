from collections.abc import Callable

from solution import parse_movement


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_outgoing_line() -> None:
    assert parse_movement("STK|20240102|B-12|00412|-3|jk") == {
        "date": "2024-01-02",
        "bin": "B-12",
        "sku": "00412",
        "qty": -3,
        "user": "jk",
    }


def test_incoming_line_with_newline() -> None:
    assert parse_movement("STK|20240115|A-01|10055|+40|jk\n") == {
        "date": "2024-01-15",
        "bin": "A-01",
        "sku": "10055",
        "qty": 40,
        "user": "jk",
    }


def test_other_values() -> None:
    result = parse_movement("  STK|20231231|D-14|00003|-2|al  ")
    assert result == {"date": "2023-12-31", "bin": "D-14", "sku": "00003", "qty": -2, "user": "al"}


def test_count_line_is_rejected() -> None:
    assert raises(ValueError, parse_movement, "CNT|20240105|C-07|01200|48|mw")


def test_header_and_comment_are_rejected() -> None:
    assert raises(ValueError, parse_movement, "HDR|2024-01|Hamburg Nord|v3")
    assert raises(ValueError, parse_movement, "# depot Hamburg Nord, movements 2024-01")


def test_every_movement_in_the_log() -> None:
    with open("logs/movements_2024-01.log", encoding="utf-8") as log:
        lines = [line for line in log if line.startswith("STK")]
    moves = [parse_movement(line) for line in lines]
    assert len(moves) == 6
    assert sum(move["qty"] for move in moves) == 40
    assert moves[-1]["date"] == "2024-01-31"
