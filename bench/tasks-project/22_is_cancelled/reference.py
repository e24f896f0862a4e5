"""Return True when the order's status is the cancelled code."""

import sqlite3


def is_cancelled(db_path: str, order_no: int) -> bool:
    """Return True when the order's status is the cancelled code."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT ord_stat FROM ord_hdr WHERE ord_no = ?",
            (order_no,),
        ).fetchone()
    finally:
        con.close()
    return row[0] == "CXL"
