from solution import Scoreboard


def test_record_returns_running_total() -> None:
    board = Scoreboard()
    assert board.record("ann", 5) == 5
    assert board.record("ann", 3) == 8
    assert board.record("ann", -10) == -2
    assert board.total("ann") == -2


def test_unknown_player_total_is_zero() -> None:
    board = Scoreboard()
    assert board.total("nobody") == 0
    assert board.top(3) == []


def test_top_orders_by_total_then_name() -> None:
    board = Scoreboard()
    board.record("dan", 4)
    board.record("bea", 9)
    board.record("cal", 4)
    board.record("abe", 1)
    assert board.top(4) == ["bea", "cal", "dan", "abe"]
    assert board.top(2) == ["bea", "cal"]


def test_top_with_n_out_of_range() -> None:
    board = Scoreboard()
    board.record("x", 1)
    board.record("y", 2)
    assert board.top(10) == ["y", "x"]
    assert board.top(0) == []
    assert board.top(-1) == []


def test_zero_and_negative_totals_are_listed() -> None:
    board = Scoreboard()
    board.record("neg", -3)
    board.record("zero", 0)
    board.record("pos", 2)
    assert board.top(3) == ["pos", "zero", "neg"]


def test_scoreboards_are_independent() -> None:
    first, second = Scoreboard(), Scoreboard()
    first.record("a", 1)
    assert second.total("a") == 0
    assert second.top(1) == []
