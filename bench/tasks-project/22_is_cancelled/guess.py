"""Return True when the order's status is cancelled."""

import sqlite3


def is_cancelled(db_path: str, order_no: int) -> bool:
    """Return True when the order's status is cancelled."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT status FROM orders WHERE order_no = ?",
            (order_no,),
        ).fetchone()
    finally:
        con.close()
    return row is not None and row[0].lower() in ("cancelled", "canceled")
