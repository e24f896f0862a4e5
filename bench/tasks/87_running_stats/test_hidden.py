import math
from collections.abc import Callable

from solution import RunningStats


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_count_starts_at_zero_and_grows() -> None:
    stats = RunningStats()
    assert stats.count() == 0
    stats.add(5)
    stats.add(7)
    assert stats.count() == 2


def test_mean() -> None:
    stats = RunningStats()
    for value in [2, 4, 9]:
        stats.add(value)
    assert math.isclose(stats.mean(), 5.0)
    stats.add(1)
    assert math.isclose(stats.mean(), 4.0)


def test_mean_is_not_rounded() -> None:
    stats = RunningStats()
    stats.add(1)
    stats.add(2)
    assert math.isclose(stats.mean(), 1.5)


def test_smallest_and_largest() -> None:
    stats = RunningStats()
    for value in [3, -2, 8.5, 0]:
        stats.add(value)
    assert stats.smallest() == -2
    assert stats.largest() == 8.5


def test_one_number() -> None:
    stats = RunningStats()
    stats.add(4)
    assert math.isclose(stats.mean(), 4.0)
    assert stats.smallest() == 4
    assert stats.largest() == 4


def test_empty_raises() -> None:
    stats = RunningStats()
    assert raises(ValueError, stats.mean)
    assert raises(ValueError, stats.smallest)
    assert raises(ValueError, stats.largest)
