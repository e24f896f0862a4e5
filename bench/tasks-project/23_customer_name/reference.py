"""Return the name of the customer who placed the order."""

import sqlite3


def customer_name(db_path: str, order_no: int) -> str:
    """Return the name of the customer who placed the order."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT c.cst_nm FROM ord_hdr h JOIN cst_mst c ON c.cst_id = h.cst_id"
            " WHERE h.ord_no = ?",
            (order_no,),
        ).fetchone()
    finally:
        con.close()
    return row[0]
