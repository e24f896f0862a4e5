from collections.abc import Callable

from solution import bump_version


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_each_part() -> None:
    assert bump_version("3.7.9", "major") == "4.0.0"
    assert bump_version("3.7.9", "minor") == "3.8.0"
    assert bump_version("3.7.9", "patch") == "3.7.10"


def test_numbers_past_nine() -> None:
    assert bump_version("9.99.999", "minor") == "9.100.0"
    assert bump_version("0.0.0", "patch") == "0.0.1"


def test_v_prefix_is_kept() -> None:
    assert bump_version("v0.1.0", "major") == "v1.0.0"
    assert bump_version("v10.4.1", "minor") == "v10.5.0"


def test_pre_release_tags_are_dropped() -> None:
    assert bump_version("1.4.0-rc.1", "patch") == "1.4.1"
    assert bump_version("v2.0.0-beta", "minor") == "v2.1.0"


def test_leading_zeros_go() -> None:
    assert bump_version("1.02.3", "patch") == "1.2.4"


def test_bad_versions_raise() -> None:
    for version in ["1.2", "1.2.x", "1.2.3-", "1.2.3.4", "V1.2.3", "", "x1.2.3", " 1.2.3"]:
        assert raises(ValueError, bump_version, version, "patch"), version


def test_bad_part_raises() -> None:
    assert raises(ValueError, bump_version, "1.2.3", "micro")
    assert raises(ValueError, bump_version, "1.2.3", "Major")
