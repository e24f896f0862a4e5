"""Return the sorted titles of every loan of the member."""

import sqlite3


def borrowed_titles(db_path: str, card_no: str) -> list[str]:
    """Return the sorted titles of every loan of the member."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT b.ttl_txt FROM ln_rec l JOIN bk_cat b ON b.bk_id = l.bk_id"
            " WHERE l.mbr_no = ? ORDER BY b.ttl_txt",
            (card_no,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
