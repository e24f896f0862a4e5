"""Return the summed fines (cents) of the member."""

import sqlite3


def fines_total(db_path: str, card_no: str) -> int:
    """Return the summed fines (cents) of the member."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT SUM(amount_cents) FROM fines WHERE card_no = ?",
            (card_no,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0] or 0)
