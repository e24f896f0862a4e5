"""Hidden tests for letter_grade."""

from solution import letter_grade


def test_top_grades() -> None:
    """Full marks and the A boundary."""
    assert letter_grade(100.0, 100.0) == "A"
    assert letter_grade(87.0, 100.0) == "A"


def test_scale_boundaries() -> None:
    """Each letter starts at its minimum percentage."""
    assert letter_grade(74.0, 100.0) == "B"
    assert letter_grade(61.0, 100.0) == "C"
    assert letter_grade(50.0, 100.0) == "D"
    assert letter_grade(48.0, 100.0) == "F"


def test_percentage_rounded_first() -> None:
    """The percentage is rounded to a whole number, .5 up, before comparing."""
    assert letter_grade(86.5, 100.0) == "A"
    assert letter_grade(36.8, 50.0) == "B"
    assert letter_grade(49.5, 100.0) == "D"
    assert letter_grade(73.4, 100.0) == "C"


def test_other_max_points() -> None:
    """Scores out of other maxima."""
    assert letter_grade(17.0, 20.0) == "B"
    assert letter_grade(0.0, 20.0) == "F"
    assert letter_grade(12.5, 20.0) == "C"
