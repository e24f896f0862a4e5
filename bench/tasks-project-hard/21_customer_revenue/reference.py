"""Reference solution: revenue of one customer in cents, cancelled orders excluded."""

import sqlite3


def customer_revenue(db_path: str, name: str) -> int:
    """Return the summed order amounts (cents) of the named customer, without cancelled ones."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COALESCE(SUM(h.amt_c), 0) FROM ord_hdr h"
            " JOIN cst_mst c ON c.cst_id = h.cst_id"
            " WHERE c.cst_nm = ? AND h.ord_stat != 'CXL'",
            (name,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
