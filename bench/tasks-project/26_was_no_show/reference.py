"""Return True when the visit's status is the no-show code."""

import sqlite3


def was_no_show(db_path: str, visit_id: int) -> bool:
    """Return True when the visit's status is the no-show code."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT vis_stat FROM pt_visit WHERE vis_id = ?",
            (visit_id,),
        ).fetchone()
    finally:
        con.close()
    return row[0] == "NSH"
