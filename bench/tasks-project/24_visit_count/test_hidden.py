from solution import visit_count

DB = "clinic.db"


def test_example_patient() -> None:
    assert visit_count(DB, 501) == 5


def test_three_visits() -> None:
    assert visit_count(DB, 502) == 3
    assert visit_count(DB, 503) == 3


def test_two_visits() -> None:
    assert visit_count(DB, 504) == 2


def test_one_visit() -> None:
    assert visit_count(DB, 508) == 1


def test_returns_int() -> None:
    assert type(visit_count(DB, 509)) is int
    assert visit_count(DB, 509) == 1
