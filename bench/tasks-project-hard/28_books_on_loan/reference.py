"""Reference solution: titles a member currently has on loan."""

import sqlite3


def books_on_loan(db_path: str, card_no: str) -> list[str]:
    """Return the sorted titles of the member's loans that have no return date."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.ttl_txt FROM ln_rec l JOIN bk_cat b ON b.bk_id = l.bk_id"
            " WHERE l.mbr_no = ? AND l.ret_ymd IS NULL ORDER BY b.ttl_txt",
            (card_no,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
