"""Return the shipped units of one product over all order lines."""

import sqlite3


def units_shipped(db_path: str, sku: str) -> int:
    """Return the shipped units of one product over all order lines."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT SUM(quantity_shipped) FROM order_lines WHERE sku = ?",
            (sku,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0] or 0)
