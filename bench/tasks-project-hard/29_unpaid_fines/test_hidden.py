from solution import unpaid_fines

DB = "library.db"


def test_waived_fine_is_not_owed() -> None:
    assert unpaid_fines(DB, "M-014") == 1450


def test_paid_fine_is_not_owed() -> None:
    assert unpaid_fines(DB, "M-027") == 400


def test_only_paid_fines_gives_zero() -> None:
    assert unpaid_fines(DB, "M-031") == 0


def test_only_waived_fines_gives_zero() -> None:
    assert unpaid_fines(DB, "M-052") == 0


def test_no_fines_or_unknown_card_gives_zero() -> None:
    assert unpaid_fines(DB, "M-060") == 0
    assert unpaid_fines(DB, "M-099") == 0


def test_returns_int() -> None:
    assert type(unpaid_fines(DB, "M-045")) is int
    assert unpaid_fines(DB, "M-045") == 900
