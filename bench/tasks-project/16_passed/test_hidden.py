"""Hidden tests for passed."""

from solution import passed


def test_general_pass_mark() -> None:
    """A course without its own mark uses the general one."""
    assert passed("mathematics", 55) is True
    assert passed("mathematics", 54) is False


def test_general_pass_mark_other_course() -> None:
    """Another course without its own mark."""
    assert passed("history", 58) is True
    assert passed("history", 20) is False


def test_chemistry() -> None:
    """Chemistry asks for more."""
    assert passed("chemistry", 61) is False
    assert passed("chemistry", 62) is True


def test_latin() -> None:
    """Latin asks for less."""
    assert passed("latin", 48) is True
    assert passed("latin", 47) is False


def test_high_scores() -> None:
    """High scores pass everywhere."""
    assert passed("chemistry", 100) is True
    assert passed("geography", 90) is True
