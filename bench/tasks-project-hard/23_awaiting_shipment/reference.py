"""Reference solution: orders that are neither shipped nor cancelled."""

import sqlite3


def awaiting_shipment(db_path: str) -> list[int]:
    """Return the sorted order numbers whose status is not shipped and not cancelled."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT ord_no FROM ord_hdr WHERE ord_stat NOT IN ('SHP', 'CXL') ORDER BY ord_no"
        ).fetchall()
    finally:
        con.close()
    return [int(r[0]) for r in rows]
