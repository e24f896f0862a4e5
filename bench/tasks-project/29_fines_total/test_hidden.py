from solution import fines_total

DB = "library.db"


def test_three_fines() -> None:
    assert fines_total(DB, "M-014") == 1750


def test_two_fines() -> None:
    assert fines_total(DB, "M-027") == 550


def test_one_damage_fine() -> None:
    assert fines_total(DB, "M-045") == 900


def test_small_fine() -> None:
    assert fines_total(DB, "M-031") == 75


def test_returns_int() -> None:
    assert type(fines_total(DB, "M-052")) is int
    assert fines_total(DB, "M-052") == 120
