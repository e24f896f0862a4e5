from collections.abc import Callable

from solution import path_to_root


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


TREE = {"root": None, "x": "root", "y": "root", "x1": "x", "x2": "x", "x11": "x1"}


def test_chain_and_root() -> None:
    assert path_to_root({"a": None, "b": "a", "c": "b"}, "c") == ["c", "b", "a"]
    assert path_to_root({"a": None}, "a") == ["a"]
    assert path_to_root(TREE, "root") == ["root"]


def test_branching_tree() -> None:
    assert path_to_root(TREE, "x11") == ["x11", "x1", "x", "root"]
    assert path_to_root(TREE, "x2") == ["x2", "x", "root"]
    assert path_to_root(TREE, "y") == ["y", "root"]


def test_falsy_nodes_are_ordinary_nodes() -> None:
    assert path_to_root({0: None, 1: 0, 2: 1}, 2) == [2, 1, 0]
    assert path_to_root({"": None, "leaf": ""}, "leaf") == ["leaf", ""]


def test_several_roots() -> None:
    forest = {"a": None, "b": None, "c": "b"}
    assert path_to_root(forest, "c") == ["c", "b"]
    assert path_to_root(forest, "a") == ["a"]


def test_missing_node_or_parent_raises_key_error() -> None:
    assert raises(KeyError, path_to_root, TREE, "z")
    assert raises(KeyError, path_to_root, {"b": "a"}, "b")
    assert raises(KeyError, path_to_root, {}, "a")


def test_cycle_raises_value_error() -> None:
    assert raises(ValueError, path_to_root, {"a": "b", "b": "a"}, "a")
    assert raises(ValueError, path_to_root, {"a": "a"}, "a")
    assert raises(ValueError, path_to_root, {"a": "b", "b": "c", "c": "b"}, "a")
    assert raises(ValueError, path_to_root, {"r": None, "a": "b", "b": "c", "c": "a"}, "a")
