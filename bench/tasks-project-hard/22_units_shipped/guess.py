"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def units_shipped(db_path: str, sku: str) -> int:
    """Return the shipped quantity of the product over all order lines."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(shipped_qty), 0) FROM order_items WHERE sku = ?", (sku,)
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
