from solution import visit_doctor

DB = "clinic.db"


def test_first_visit() -> None:
    assert visit_doctor(DB, 1) == "Amara Flint"


def test_dermatology_visit() -> None:
    assert visit_doctor(DB, 2) == "Luis Ortega"


def test_paediatric_visit() -> None:
    assert visit_doctor(DB, 9) == "Mei Tanaka"


def test_another_gp() -> None:
    assert visit_doctor(DB, 5) == "Otto Brandt"


def test_booked_visit() -> None:
    assert visit_doctor(DB, 21) == "Ines Vale"
