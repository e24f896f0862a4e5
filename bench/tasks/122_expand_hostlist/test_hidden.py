from collections.abc import Callable

from solution import expand_hostlist


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_a_range() -> None:
    assert expand_hostlist("node[4-6]") == ["node4", "node5", "node6"]
    assert expand_hostlist("n[7-7].lab") == ["n7.lab"]


def test_lists_keep_their_order() -> None:
    assert expand_hostlist("gpu[3,1,2-3]") == ["gpu3", "gpu1", "gpu2", "gpu3"]


def test_zero_padding() -> None:
    assert expand_hostlist("r[098-101]") == ["r098", "r099", "r100", "r101"]
    assert expand_hostlist("r[9-11]") == ["r9", "r10", "r11"]
    assert expand_hostlist("x[007]") == ["x007"]


def test_text_after_the_group() -> None:
    assert expand_hostlist("[1-2]-edge.example.org") == ["1-edge.example.org", "2-edge.example.org"]


def test_no_brackets() -> None:
    assert expand_hostlist("db-primary.local") == ["db-primary.local"]


def test_bad_items_raise() -> None:
    assert raises(ValueError, expand_hostlist, "web[3-1]")
    assert raises(ValueError, expand_hostlist, "web[1,,2]")
    assert raises(ValueError, expand_hostlist, "web[a-c]")
    assert raises(ValueError, expand_hostlist, "web[]")


def test_bad_brackets_raise() -> None:
    assert raises(ValueError, expand_hostlist, "web[1-3")
    assert raises(ValueError, expand_hostlist, "web1-3]")
    assert raises(ValueError, expand_hostlist, "a[1]b[2]")
    assert raises(ValueError, expand_hostlist, "a]1[")
