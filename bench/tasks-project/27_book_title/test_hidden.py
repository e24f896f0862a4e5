from solution import book_title

DB = "library.db"


def test_example_book() -> None:
    assert book_title(DB, "9780000000057") == "The Quiet Engineer"


def test_first_book() -> None:
    assert book_title(DB, "9780000000019") == "The Salt Road"


def test_another_book() -> None:
    assert book_title(DB, "9780000000088") == "Ledger of Clouds"


def test_last_book() -> None:
    assert book_title(DB, "9780000000101") == "Harbor Lights"


def test_nature_book() -> None:
    assert book_title(DB, "9780000000064") == "Birds of the Estuary"
