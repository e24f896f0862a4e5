from solution import overtime_label


def test_exactly_the_standard_week() -> None:
    assert overtime_label(2310) == "+0h00"


def test_overtime() -> None:
    assert overtime_label(2400) == "+1h30"


def test_short_overtime() -> None:
    assert overtime_label(2315) == "+0h05"


def test_undertime() -> None:
    assert overtime_label(2280) == "-0h30"


def test_long_week() -> None:
    assert overtime_label(2935) == "+10h25"


def test_week_of_holidays() -> None:
    assert overtime_label(0) == "-38h30"
