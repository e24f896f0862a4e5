"""Reference solution: titles of overdue loans on a given day."""

import sqlite3


def overdue_titles(db_path: str, today: str) -> list[str]:
    """Return the sorted titles of unreturned loans whose due date is before today."""
    day = today.replace("-", "")
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.ttl_txt FROM ln_rec l JOIN bk_cat b ON b.bk_id = l.bk_id"
            " WHERE l.ret_ymd IS NULL AND l.due_ymd < ? ORDER BY b.ttl_txt",
            (day,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
