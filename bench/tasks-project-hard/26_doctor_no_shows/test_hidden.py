from solution import doctor_no_shows

DB = "clinic.db"


def test_doctor_with_several_no_shows() -> None:
    assert doctor_no_shows(DB, "Amara Flint") == 4


def test_called_off_visit_is_not_a_no_show() -> None:
    assert doctor_no_shows(DB, "Luis Ortega") == 1


def test_another_doctor() -> None:
    assert doctor_no_shows(DB, "Mei Tanaka") == 1


def test_doctor_without_no_shows() -> None:
    assert doctor_no_shows(DB, "Otto Brandt") == 0
    assert doctor_no_shows(DB, "Ines Vale") == 0


def test_unknown_doctor_gives_zero() -> None:
    assert doctor_no_shows(DB, "Gregory House") == 0


def test_returns_int() -> None:
    assert type(doctor_no_shows(DB, "Amara Flint")) is int
