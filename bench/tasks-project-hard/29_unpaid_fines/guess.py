"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def unpaid_fines(db_path: str, card_no: str) -> int:
    """Return the summed cents of the member's fines that are neither paid nor waived."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(amount_cents), 0) FROM fines"
            " WHERE card_no = ? AND paid = 0 AND waived = 0",
            (card_no,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
