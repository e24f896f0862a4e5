from solution import status_class


def test_each_class() -> None:
    assert status_class(101) == "1xx"
    assert status_class(200) == "2xx"
    assert status_class(302) == "3xx"
    assert status_class(429) == "4xx"
    assert status_class(500) == "5xx"


def test_range_ends() -> None:
    assert status_class(100) == "1xx"
    assert status_class(599) == "5xx"


def test_whole_hundreds_share_a_class() -> None:
    assert status_class(250) == "2xx"
    assert status_class(399) == "3xx"
    assert status_class(451) == "4xx"


def test_below_100() -> None:
    assert status_class(99) == "invalid"
    assert status_class(0) == "invalid"
    assert status_class(-200) == "invalid"


def test_600_and_above() -> None:
    assert status_class(600) == "invalid"
    assert status_class(1000) == "invalid"
