from collections.abc import Callable

from solution import TodoList


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_new_list_is_empty() -> None:
    todo = TodoList()
    assert todo.pending() == []
    assert todo.done_count() == 0


def test_add_returns_numbers_from_one() -> None:
    todo = TodoList()
    assert todo.add("a") == 1
    assert todo.add("b") == 2
    assert todo.add("c") == 3


def test_pending_keeps_the_order_added() -> None:
    todo = TodoList()
    for title in ["wash", "cook", "read"]:
        todo.add(title)
    assert todo.pending() == ["wash", "cook", "read"]


def test_complete_removes_from_pending() -> None:
    todo = TodoList()
    todo.add("buy milk")
    todo.add("call mom")
    todo.add("pay rent")
    todo.complete(2)
    assert todo.pending() == ["buy milk", "pay rent"]
    assert todo.done_count() == 1
    todo.complete(1)
    todo.complete(3)
    assert todo.pending() == []
    assert todo.done_count() == 3


def test_unknown_number_raises() -> None:
    todo = TodoList()
    assert raises(KeyError, todo.complete, 1)
    todo.add("only")
    assert raises(KeyError, todo.complete, 2)
    assert raises(KeyError, todo.complete, 0)
    assert todo.pending() == ["only"]


def test_lists_are_independent() -> None:
    first, second = TodoList(), TodoList()
    first.add("x")
    assert second.pending() == []
    assert second.add("y") == 1
