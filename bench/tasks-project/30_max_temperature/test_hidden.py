import math

from solution import max_temperature

DB = "sensors.db"


def test_example_sensor() -> None:
    assert math.isclose(max_temperature(DB, "GH-02"), 23.4)


def test_north_bench() -> None:
    assert math.isclose(max_temperature(DB, "GH-01"), 26.3)


def test_propagation_room() -> None:
    assert math.isclose(max_temperature(DB, "GH-03"), 21.9)


def test_shed() -> None:
    assert math.isclose(max_temperature(DB, "SH-01"), 17.2)


def test_returns_float() -> None:
    assert isinstance(max_temperature(DB, "GH-01"), float)
