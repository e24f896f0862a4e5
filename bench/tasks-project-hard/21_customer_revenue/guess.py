"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def customer_revenue(db_path: str, name: str) -> int:
    """Return the summed order totals (cents) of the named customer, without cancelled ones."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(o.total_cents), 0) FROM orders o"
            " JOIN customers c ON c.id = o.customer_id"
            " WHERE c.name = ? AND o.status != 'cancelled'",
            (name,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
