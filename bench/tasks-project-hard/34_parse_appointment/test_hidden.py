from collections.abc import Callable

from solution import parse_appointment


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_first_record() -> None:
    assert parse_appointment("202404080800P0012345  DRK015CHK\n") == {
        "date": "2024-04-08",
        "time": "08:00",
        "patient": "P0012345",
        "doctor": "Dr. Anna Krause",
        "minutes": 15,
    }


def test_short_patient_id_and_long_name() -> None:
    assert parse_appointment("202404080900X20031    HBM045CHK") == {
        "date": "2024-04-08",
        "time": "09:00",
        "patient": "X20031",
        "doctor": "Dr. Hakan Bulut-Meier",
        "minutes": 45,
    }


def test_afternoon_record() -> None:
    result = parse_appointment("202412311345P0000071  SLZ120FUP")
    assert result["date"] == "2024-12-31"
    assert result["time"] == "13:45"
    assert result["patient"] == "P0000071"
    assert result["doctor"] == "Dr. Sofia Lenz"
    assert result["minutes"] == 120


def test_unknown_doctor() -> None:
    assert raises(ValueError, parse_appointment, "202404080800P0012345  XYZ015CHK")


def test_whole_export() -> None:
    with open("agenda/2024-04-08.txt", encoding="utf-8") as export:
        records = [parse_appointment(line) for line in export]
    assert sum(item["minutes"] for item in records) == 120
    assert [item["doctor"] for item in records].count("Dr. Anna Krause") == 2
