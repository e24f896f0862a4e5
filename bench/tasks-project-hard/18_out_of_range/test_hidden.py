"""Hidden tests for out_of_range."""

from solution import out_of_range


def test_temperature_limits() -> None:
    """Cold storage must stay between its limits; the limits themselves are fine."""
    readings = [("temp_c", 2.0), ("temp_c", 8.5), ("temp_c", 8.6), ("temp_c", 1.9)]
    assert out_of_range(readings) == [2, 3]


def test_missing_lower_bound() -> None:
    """CO2 and door sensors only have an upper limit."""
    readings = [("co2_ppm", 0.0), ("co2_ppm", 1100.0), ("co2_ppm", 1101.0), ("door_open_s", 91)]
    assert out_of_range(readings) == [2, 3]


def test_missing_upper_bound() -> None:
    """The battery only has a lower limit."""
    readings = [("battery_v", 12.0), ("battery_v", 3.3), ("battery_v", 3.2)]
    assert out_of_range(readings) == [2]


def test_humidity() -> None:
    """Humidity has both limits."""
    readings = [("humidity_pct", 29.5), ("humidity_pct", 65.0), ("humidity_pct", 66.0)]
    assert out_of_range(readings) == [0, 2]


def test_unknown_kinds_ignored() -> None:
    """Kinds the warehouse does not list are ignored."""
    readings = [("pressure_hpa", 500.0), ("temperature", 99.0), ("temp_c", 20.0)]
    assert out_of_range(readings) == [2]


def test_empty() -> None:
    """No readings, no alerts."""
    assert out_of_range([]) == []
