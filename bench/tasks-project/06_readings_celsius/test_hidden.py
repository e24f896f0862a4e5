import math

from solution import readings_celsius


def same(got: list[float], expected: list[float]) -> bool:
    """Whether two lists of temperatures agree to a hundredth of a degree."""
    return len(got) == len(expected) and all(
        math.isclose(a, b, abs_tol=0.006) for a, b in zip(got, expected, strict=True)
    )


def test_zero_degrees() -> None:
    assert same(readings_celsius([880]), [0.0])


def test_warm_day() -> None:
    assert same(readings_celsius([1200, 1280, 1304]), [20.0, 25.0, 26.5])


def test_frost() -> None:
    assert same(readings_celsius([840, 800]), [-2.5, -5.0])


def test_fractions_of_a_degree() -> None:
    assert same(readings_celsius([1203, 1209]), [20.19, 20.56])


def test_order_is_kept() -> None:
    assert same(readings_celsius([1440, 880, 1040]), [35.0, 0.0, 10.0])
