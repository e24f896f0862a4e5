"""Reference solution: open fines of a member in cents."""

import sqlite3


def unpaid_fines(db_path: str, card_no: str) -> int:
    """Return the summed cents of the member's fines that are neither paid nor waived."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(fn_c), 0) FROM fine_lg WHERE mbr_no = ? AND pd_flg = 'N'",
            (card_no,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
