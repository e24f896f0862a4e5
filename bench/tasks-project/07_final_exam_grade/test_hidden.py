import math

from solution import final_exam_grade


def test_full_marks() -> None:
    assert math.isclose(final_exam_grade(56), 6.0)


def test_no_points() -> None:
    assert math.isclose(final_exam_grade(0), 1.0)


def test_half_the_points() -> None:
    assert math.isclose(final_exam_grade(28), 3.5)


def test_just_a_pass() -> None:
    assert math.isclose(final_exam_grade(33), 4.0)


def test_good_result() -> None:
    assert math.isclose(final_exam_grade(45), 5.0)


def test_weak_result() -> None:
    assert math.isclose(final_exam_grade(20), 3.0)
