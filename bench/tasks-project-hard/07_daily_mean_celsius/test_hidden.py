import math

from solution import daily_mean_celsius


def test_converts_and_averages() -> None:
    # 960 -> 20.0, 976 -> 21.0, 992 -> 22.0
    result = daily_mean_celsius([960, 976, 992])
    assert result is not None
    assert math.isclose(result, 21.0)


def test_single_reading() -> None:
    result = daily_mean_celsius([1000])
    assert result is not None
    assert math.isclose(result, 22.5)


def test_fault_codes_are_skipped() -> None:
    # 904 -> 16.5, 912 -> 17.0; 0 and 4095 are probe faults
    result = daily_mean_celsius([0, 904, 4095, 912, 0])
    assert result is not None
    assert math.isclose(result, 16.75)


def test_below_zero() -> None:
    # 560 -> -5.0, 600 -> -2.5
    result = daily_mean_celsius([560, 600])
    assert result is not None
    assert math.isclose(result, -3.75)


def test_rounded_to_two_decimals() -> None:
    # 20.0, 20.25, 20.75 -> mean 20.3333...
    result = daily_mean_celsius([960, 964, 972])
    assert result is not None
    assert math.isclose(result, 20.33)


def test_only_faults_gives_none() -> None:
    assert daily_mean_celsius([0, 4095, 4095]) is None
    assert daily_mean_celsius([]) is None
