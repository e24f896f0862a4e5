from solution import ordinal


def test_first_few() -> None:
    assert ordinal(1) == "1st"
    assert ordinal(2) == "2nd"
    assert ordinal(3) == "3rd"
    assert ordinal(4) == "4th"


def test_teens_take_th() -> None:
    assert ordinal(11) == "11th"
    assert ordinal(12) == "12th"
    assert ordinal(13) == "13th"


def test_twenties() -> None:
    assert ordinal(21) == "21st"
    assert ordinal(22) == "22nd"
    assert ordinal(23) == "23rd"


def test_hundreds() -> None:
    assert ordinal(101) == "101st"
    assert ordinal(111) == "111th"
    assert ordinal(112) == "112th"
    assert ordinal(213) == "213th"


def test_zero() -> None:
    assert ordinal(0) == "0th"
