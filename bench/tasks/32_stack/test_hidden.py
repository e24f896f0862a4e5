from collections.abc import Callable

from solution import Stack


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_new_stack_is_empty() -> None:
    stack = Stack()
    assert stack.is_empty() is True
    assert stack.size() == 0


def test_push_then_pop_is_last_in_first_out() -> None:
    stack = Stack()
    for item in [1, 2, 3]:
        stack.push(item)
    assert stack.pop() == 3
    assert stack.pop() == 2
    assert stack.pop() == 1
    assert stack.is_empty() is True


def test_peek_does_not_remove() -> None:
    stack = Stack()
    stack.push("a")
    stack.push("b")
    assert stack.peek() == "b"
    assert stack.size() == 2
    assert stack.is_empty() is False


def test_size_follows_pushes_and_pops() -> None:
    stack = Stack()
    stack.push(None)
    stack.push(0)
    assert stack.size() == 2
    stack.pop()
    assert stack.size() == 1


def test_empty_stack_raises() -> None:
    stack = Stack()
    assert raises(IndexError, stack.pop)
    assert raises(IndexError, stack.peek)


def test_stacks_are_independent() -> None:
    first, second = Stack(), Stack()
    first.push(1)
    assert second.is_empty() is True
