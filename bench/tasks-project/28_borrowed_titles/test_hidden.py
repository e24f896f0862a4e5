from solution import borrowed_titles

DB = "library.db"


def test_four_loans() -> None:
    assert borrowed_titles(DB, "M-014") == [
        "A Map of Small Rivers",
        "The Quiet Engineer",
        "The Salt Road",
        "Winter Orchard",
    ]


def test_two_loans() -> None:
    assert borrowed_titles(DB, "M-027") == ["A Map of Small Rivers", "Ledger of Clouds"]


def test_returned_and_open_loans() -> None:
    assert borrowed_titles(DB, "M-031") == ["Copper and Glass", "Stone Garden"]


def test_sorted() -> None:
    assert borrowed_titles(DB, "M-052") == ["Harbor Lights", "Night Ferry"]


def test_one_loan() -> None:
    assert borrowed_titles(DB, "M-060") == ["The Salt Road"]
