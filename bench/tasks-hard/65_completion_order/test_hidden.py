from collections.abc import Callable

from solution import completion_order


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_examples() -> None:
    assert completion_order([("a", 3), ("b", 1)], 2) == [("b", 3), ("a", 4)]
    assert completion_order([("x", 2), ("y", 2)], 5) == [("x", 2), ("y", 4)]


def test_no_jobs() -> None:
    assert completion_order([], 3) == []


def test_several_rounds() -> None:
    jobs = [("a", 5), ("b", 2), ("c", 4)]
    assert completion_order(jobs, 2) == [("b", 4), ("c", 10), ("a", 11)]
    assert completion_order(jobs, 1) == [("b", 5), ("c", 10), ("a", 11)]


def test_single_job_takes_its_duration() -> None:
    assert completion_order([("solo", 7)], 3) == [("solo", 7)]


def test_exact_multiples_of_the_quantum() -> None:
    assert completion_order([("p", 4), ("q", 2), ("r", 4)], 2) == [
        ("q", 4),
        ("p", 8),
        ("r", 10),
    ]


def test_quantum_below_one_raises() -> None:
    assert raises(ValueError, completion_order, [("a", 1)], 0)
    assert raises(ValueError, completion_order, [("a", 1)], -2)
