"""Reference solution: units of a product that were shipped."""

import sqlite3


def units_shipped(db_path: str, sku: str) -> int:
    """Return the shipped quantity of the product over all order lines."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(qty_shipped), 0) FROM ord_ln WHERE sku_cd = ?", (sku,)
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
