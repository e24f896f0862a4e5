"""Return True when the visit's status is no-show."""

import sqlite3


def was_no_show(db_path: str, visit_id: int) -> bool:
    """Return True when the visit's status is no-show."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT status FROM visits WHERE id = ?",
            (visit_id,),
        ).fetchone()
    finally:
        con.close()
    return row is not None and row[0].lower().replace("-", "_") == "no_show"
