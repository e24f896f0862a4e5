from solution import minutes_between


def test_same_hour() -> None:
    assert minutes_between(930, 945) == 15
    assert minutes_between(1201, 1259) == 58


def test_across_hours() -> None:
    assert minutes_between(930, 1000) == 30
    assert minutes_between(845, 1710) == 505
    assert minutes_between(0, 2359) == 1439


def test_wraps_past_midnight() -> None:
    assert minutes_between(2330, 15) == 45
    assert minutes_between(1000, 930) == 1410
    assert minutes_between(2359, 0) == 1


def test_equal_times() -> None:
    assert minutes_between(1200, 1200) == 0
    assert minutes_between(0, 0) == 0
