from collections.abc import Callable

from solution import door_state


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_no_events_is_closed() -> None:
    assert door_state([]) == "closed"


def test_each_transition() -> None:
    assert door_state(["open"]) == "open"
    assert door_state(["open", "close"]) == "closed"
    assert door_state(["lock"]) == "locked"
    assert door_state(["lock", "unlock"]) == "closed"


def test_events_that_do_not_fit_are_ignored() -> None:
    assert door_state(["lock", "open"]) == "locked"
    assert door_state(["open", "lock"]) == "open"
    assert door_state(["close"]) == "closed"
    assert door_state(["unlock"]) == "closed"
    assert door_state(["open", "open"]) == "open"


def test_longer_sequences() -> None:
    assert door_state(["open", "close", "lock"]) == "locked"
    assert door_state(["lock", "open", "unlock", "open"]) == "open"
    assert door_state(["open", "unlock", "close", "lock", "lock", "unlock"]) == "closed"


def test_unknown_event_raises() -> None:
    assert raises(ValueError, door_state, ["open", "slam"])
    assert raises(ValueError, door_state, ["Open"])
    assert raises(ValueError, door_state, [""])
