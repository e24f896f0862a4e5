import math

from solution import billable_weight


def test_bulky_parcel_bills_volume() -> None:
    # 40 x 30 x 20 cm = 24000 cm3 -> 6.0 kg volumetric
    assert math.isclose(billable_weight(40, 30, 20, 2.0), 6.0)


def test_heavy_parcel_bills_actual_weight() -> None:
    assert math.isclose(billable_weight(20, 20, 10, 7.2), 7.5)


def test_volumetric_rounded_up_to_step() -> None:
    # 50 x 40 x 30 = 60000 -> 15.0 ; 51 x 40 x 30 = 61200 -> 15.3 -> 15.5
    assert math.isclose(billable_weight(50, 40, 30, 3.0), 15.0)
    assert math.isclose(billable_weight(51, 40, 30, 3.0), 15.5)


def test_small_light_parcel_has_minimum() -> None:
    assert math.isclose(billable_weight(10, 10, 5, 0.2), 1.0)


def test_exact_step_is_not_raised() -> None:
    assert math.isclose(billable_weight(10, 10, 10, 2.5), 2.5)


def test_volumetric_just_above_actual() -> None:
    # 45 x 25 x 20 = 22500 cm3 -> 5.625 kg -> 6.0
    assert math.isclose(billable_weight(45, 25, 20, 4.2), 6.0)
    # 60 x 40 x 40 = 96000 cm3 -> 24.0 kg
    assert math.isclose(billable_weight(60, 40, 40, 19.9), 24.0)
