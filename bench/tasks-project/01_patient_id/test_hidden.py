from solution import patient_id


def test_example_number() -> None:
    assert patient_id(42) == "PX-000042-L"


def test_first_patient() -> None:
    assert patient_id(1) == "PX-000001-R"


def test_check_letter_of_a_multiple_of_23() -> None:
    assert patient_id(23) == "PX-000023-T"


def test_larger_number() -> None:
    assert patient_id(123456) == "PX-123456-S"


def test_six_digit_number() -> None:
    assert patient_id(987654) == "PX-987654-B"
