"""Return the sorted titles of every loan of the member."""

import sqlite3


def borrowed_titles(db_path: str, card_no: str) -> list[str]:
    """Return the sorted titles of every loan of the member."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.title FROM loans l JOIN books b ON b.id = l.book_id"
            " WHERE l.card_no = ? ORDER BY b.title",
            (card_no,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
