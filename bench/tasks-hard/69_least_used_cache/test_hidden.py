from collections.abc import Callable

from solution import LeastUsedCache


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_put_get_and_size() -> None:
    cache = LeastUsedCache(3)
    assert cache.size() == 0
    cache.put("a", 1)
    cache.put("b", 0)
    assert cache.get("a") == 1
    assert cache.get("b") == 0
    assert cache.get("missing") is None
    assert cache.size() == 2


def test_evicts_the_least_used() -> None:
    cache = LeastUsedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert cache.size() == 2
    assert cache.get("b") is None
    assert cache.get("a") == 1
    assert cache.get("c") == 3


def test_tie_evicts_the_earliest_put() -> None:
    cache = LeastUsedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.get("a") is None
    assert cache.get("b") == 2
    cache = LeastUsedCache(3)
    for key in ("x", "y", "z"):
        cache.put(key, key.upper())
        cache.get(key)
    cache.get("y")
    cache.put("w", "W")
    assert cache.get("x") is None
    assert [cache.get(key) for key in ("y", "z", "w")] == ["Y", "Z", "W"]


def test_updating_keeps_uses_and_age() -> None:
    cache = LeastUsedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert cache.size() == 2
    cache.put("c", 3)
    assert cache.get("a") is None
    assert cache.get("b") == 2
    cache = LeastUsedCache(2)
    cache.put("a", 1)
    cache.get("a")
    cache.put("a", 5)
    cache.put("b", 2)
    cache.put("c", 3)
    assert cache.get("b") is None
    assert cache.get("a") == 5


def test_missing_get_counts_nothing() -> None:
    cache = LeastUsedCache(1)
    assert cache.get("x") is None
    assert cache.size() == 0
    cache.put("x", 7)
    cache.put("y", 8)
    assert cache.get("x") is None
    assert cache.get("y") == 8
    assert cache.size() == 1


def test_a_key_put_again_after_eviction_starts_at_zero_uses() -> None:
    cache = LeastUsedCache(3)
    cache.put("a", 1)
    cache.get("a")
    cache.get("a")
    cache.put("b", 2)
    cache.put("c", 3)
    cache.put("d", 4)
    for _ in range(3):
        cache.get("c")
        cache.get("d")
    cache.put("e", 5)
    assert cache.size() == 3
    cache.put("a", 6)
    cache.get("a")
    cache.get("a")
    cache.put("f", 7)
    assert cache.get("a") is None
    assert cache.get("c") == 3
    assert cache.get("d") == 4
    assert cache.get("f") == 7


def test_capacity_below_one_raises() -> None:
    assert raises(ValueError, LeastUsedCache, 0)
    assert raises(ValueError, LeastUsedCache, -3)
