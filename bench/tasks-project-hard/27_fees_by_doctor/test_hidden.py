from solution import fees_by_doctor

DB = "clinic.db"

EXPECTED = {
    "Amara Flint": 13500,
    "Luis Ortega": 16000,
    "Mei Tanaka": 12000,
    "Otto Brandt": 14900,
    "Ines Vale": 0,
}


def test_exact_totals() -> None:
    assert fees_by_doctor(DB) == EXPECTED


def test_missed_visit_fee_is_not_earned() -> None:
    assert fees_by_doctor(DB)["Amara Flint"] == 13500


def test_booked_visits_add_nothing() -> None:
    assert fees_by_doctor(DB)["Luis Ortega"] == 16000


def test_doctor_without_completed_visits_has_zero() -> None:
    result = fees_by_doctor(DB)
    assert "Ines Vale" in result
    assert result["Ines Vale"] == 0


def test_values_are_int() -> None:
    result = fees_by_doctor(DB)
    assert isinstance(result, dict)
    assert all(type(v) is int for v in result.values())
    assert set(result) == set(EXPECTED)
