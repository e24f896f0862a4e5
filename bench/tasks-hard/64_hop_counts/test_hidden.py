import copy
from collections.abc import Callable

from solution import hop_counts


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_examples() -> None:
    assert hop_counts({"a": ["b"], "b": ["c"], "c": ["a"]}, "a", 1) == {"a": 0, "b": 1}
    graph = {"a": ["b", "c"], "b": ["c", "d"]}
    assert hop_counts(graph, "a", 5) == {"a": 0, "b": 1, "c": 1, "d": 2}


def test_zero_hops_and_missing_start() -> None:
    assert hop_counts({"a": ["b"]}, "a", 0) == {"a": 0}
    assert hop_counts({"a": ["b"]}, "z", 3) == {"z": 0}
    assert hop_counts({}, "a", 2) == {"a": 0}


def test_fewest_hops_even_if_a_longer_path_is_seen_first() -> None:
    graph = {"a": ["b", "d"], "b": ["c"], "c": ["d"], "d": ["e"]}
    assert hop_counts(graph, "a", 2) == {"a": 0, "b": 1, "d": 1, "c": 2, "e": 2}
    assert hop_counts(graph, "a", 10) == {"a": 0, "b": 1, "d": 1, "c": 2, "e": 2}


def test_edges_are_one_way_and_cycles_end() -> None:
    graph = {1: [2], 2: [3], 3: [1, 4], 4: []}
    assert hop_counts(graph, 3, 1) == {3: 0, 1: 1, 4: 1}
    assert hop_counts(graph, 4, 5) == {4: 0}
    assert hop_counts(graph, 1, 100) == {1: 0, 2: 1, 3: 2, 4: 3}


def test_self_loop_and_falsy_nodes() -> None:
    assert hop_counts({0: [0, 1], 1: [0]}, 0, 3) == {0: 0, 1: 1}


def test_negative_hops_raise_and_graph_is_kept() -> None:
    graph = {"a": ["b"], "b": ["a"]}
    before = copy.deepcopy(graph)
    assert raises(ValueError, hop_counts, graph, "a", -1)
    assert hop_counts(graph, "a", 2) == {"a": 0, "b": 1}
    assert graph == before
