"""Hidden tests for can_add_project."""

from solution import can_add_project


def raises(exc, fn, *args):
    """Return True if fn(*args) raises exc."""
    try:
        fn(*args)
    except exc:
        return True
    return False


def test_starter_limit() -> None:
    """The starter plan allows two projects."""
    assert can_add_project("starter", 0) is True
    assert can_add_project("starter", 1) is True
    assert can_add_project("starter", 2) is False


def test_team_limit() -> None:
    """The team plan allows fifteen projects."""
    assert can_add_project("team", 14) is True
    assert can_add_project("team", 15) is False


def test_agency_limit() -> None:
    """The agency plan limits projects, not members."""
    assert can_add_project("agency", 59) is True
    assert can_add_project("agency", 60) is False


def test_zero_means_no_limit() -> None:
    """The scale plan has no project limit."""
    assert can_add_project("scale", 0) is True
    assert can_add_project("scale", 100000) is True


def test_unknown_plan() -> None:
    """An unknown plan raises KeyError."""
    assert raises(KeyError, can_add_project, "free", 0)
    assert raises(KeyError, can_add_project, "enterprise", 0)
