from collections.abc import Callable

from solution import Inventory


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_new_inventory_is_empty() -> None:
    inv = Inventory()
    assert inv.items() == []
    assert inv.count("anything") == 0


def test_add_accumulates() -> None:
    inv = Inventory()
    inv.add("bolt", 4)
    inv.add("bolt", 6)
    inv.add("nut", 1)
    assert inv.count("bolt") == 10
    assert inv.count("nut") == 1


def test_items_sorted_by_name() -> None:
    inv = Inventory()
    inv.add("pear", 1)
    inv.add("apple", 5)
    inv.add("fig", 2)
    assert inv.items() == [("apple", 5), ("fig", 2), ("pear", 1)]


def test_remove_reduces_and_drops_at_zero() -> None:
    inv = Inventory()
    inv.add("a", 5)
    inv.add("b", 2)
    inv.remove("a", 2)
    assert inv.count("a") == 3
    inv.remove("b", 2)
    assert inv.count("b") == 0
    assert inv.items() == [("a", 3)]


def test_remove_too_many_raises_and_keeps_count() -> None:
    inv = Inventory()
    inv.add("a", 3)
    assert raises(ValueError, inv.remove, "a", 4)
    assert inv.count("a") == 3
    assert raises(ValueError, inv.remove, "missing", 1)
    assert inv.items() == [("a", 3)]


def test_inventories_are_independent() -> None:
    first, second = Inventory(), Inventory()
    first.add("x", 1)
    assert second.count("x") == 0
    assert second.items() == []
