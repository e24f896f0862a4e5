"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def overdue_titles(db_path: str, today: str) -> list[str]:
    """Return the sorted titles of unreturned loans whose due date is before today."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.title FROM loans l JOIN books b ON b.id = l.book_id"
            " WHERE l.returned_on IS NULL AND l.due_date < ? ORDER BY b.title",
            (today,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
