"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def region_customers(db_path: str, region: str) -> list[str]:
    """Return the sorted names of the region's customers that are not voided."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT name FROM customers WHERE region = ? AND voided = 0 ORDER BY name",
            (region,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
