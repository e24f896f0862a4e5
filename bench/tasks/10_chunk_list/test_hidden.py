from collections.abc import Callable

from solution import chunk_list


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_last_chunk_shorter() -> None:
    assert chunk_list([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_exact_division() -> None:
    assert chunk_list([1, 2, 3, 4, 5, 6], 3) == [[1, 2, 3], [4, 5, 6]]


def test_size_one_and_larger_than_list() -> None:
    assert chunk_list(["a", "b"], 1) == [["a"], ["b"]]
    assert chunk_list(["a", "b"], 5) == [["a", "b"]]


def test_empty_list() -> None:
    assert chunk_list([], 3) == []


def test_bad_size_raises() -> None:
    assert raises(ValueError, chunk_list, [1, 2, 3], 0)
    assert raises(ValueError, chunk_list, [1, 2, 3], -2)
