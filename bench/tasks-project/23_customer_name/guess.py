"""Return the name of the customer who placed the order."""

import sqlite3


def customer_name(db_path: str, order_no: int) -> str:
    """Return the name of the customer who placed the order."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id"
            " WHERE o.order_no = ?",
            (order_no,),
        ).fetchone()
    finally:
        con.close()
    return row[0]
