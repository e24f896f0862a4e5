from solution import books_on_loan

DB = "library.db"


def test_returned_books_are_left_out() -> None:
    assert books_on_loan(DB, "M-014") == ["The Quiet Engineer", "Winter Orchard"]


def test_one_book_out() -> None:
    assert books_on_loan(DB, "M-027") == ["Ledger of Clouds"]
    assert books_on_loan(DB, "M-031") == ["Copper and Glass"]


def test_book_borrowed_again_by_someone_else() -> None:
    assert books_on_loan(DB, "M-060") == ["The Salt Road"]


def test_unknown_card_gives_empty_list() -> None:
    assert books_on_loan(DB, "M-099") == []


def test_list_of_str() -> None:
    result = books_on_loan(DB, "M-052")
    assert result == ["Harbor Lights"]
    assert all(isinstance(t, str) for t in result)
