"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def awaiting_shipment(db_path: str) -> list[int]:
    """Return the sorted order numbers whose status is not shipped and not cancelled."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT id FROM orders WHERE status NOT IN ('shipped', 'cancelled') ORDER BY id"
        ).fetchall()
    finally:
        con.close()
    return [int(r[0]) for r in rows]
