"""Return the title of the book with the given ISBN."""

import sqlite3


def book_title(db_path: str, isbn: str) -> str:
    """Return the title of the book with the given ISBN."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT ttl_txt FROM bk_cat WHERE isbn13 = ?",
            (isbn,),
        ).fetchone()
    finally:
        con.close()
    return row[0]
