"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def books_on_loan(db_path: str, card_no: str) -> list[str]:
    """Return the sorted titles of the member's loans that have no return date."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.title FROM loans l JOIN books b ON b.id = l.book_id"
            " WHERE l.card_no = ? AND l.returned_on IS NULL ORDER BY b.title",
            (card_no,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
