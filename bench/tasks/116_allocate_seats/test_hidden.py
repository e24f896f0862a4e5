from collections.abc import Callable

from solution import allocate_seats


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_first_row_with_room() -> None:
    assert allocate_seats(["x.x.x", "x...x", "....."], 3) == (1, 1)


def test_leftmost_run_in_the_row() -> None:
    assert allocate_seats(["..x...."], 2) == (0, 0)
    assert allocate_seats(["x.x...."], 2) == (0, 3)


def test_aisles_split_runs_and_count_as_positions() -> None:
    assert allocate_seats(["..|..|...."], 3) == (0, 6)
    assert allocate_seats(["x.|.x"], 2) is None


def test_single_seat_and_whole_row() -> None:
    assert allocate_seats(["xxx", "xx."], 1) == (1, 2)
    assert allocate_seats(["xxxx", "...."], 4) == (1, 0)


def test_no_room() -> None:
    assert allocate_seats(["x..x", "...x"], 4) is None
    assert allocate_seats([], 1) is None


def test_rows_are_not_changed() -> None:
    rows = ["x..", "..."]
    assert allocate_seats(rows, 2) == (0, 1)
    assert rows == ["x..", "..."]


def test_party_below_one_raises() -> None:
    assert raises(ValueError, allocate_seats, ["..."], 0)
