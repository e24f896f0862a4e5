import math

from solution import failure_rate


def close(value: object, expected: float) -> bool:
    return isinstance(value, int | float) and math.isclose(value, expected, abs_tol=1e-9)


def test_half_failed() -> None:
    assert close(failure_rate([200, 500, 404, 200]), 50.0)


def test_rounded_to_one_decimal() -> None:
    assert close(failure_rate([200, 200, 503]), 33.3)
    assert close(failure_rate([404, 404, 200]), 66.7)


def test_range_ends() -> None:
    assert close(failure_rate([400, 599]), 100.0)
    assert close(failure_rate([399, 600, 100]), 0.0)


def test_all_ok() -> None:
    assert close(failure_rate([200, 201, 204, 301]), 0.0)


def test_empty() -> None:
    assert close(failure_rate([]), 0.0)


def test_one_in_eight() -> None:
    assert close(failure_rate([500] + [200] * 7), 12.5)
