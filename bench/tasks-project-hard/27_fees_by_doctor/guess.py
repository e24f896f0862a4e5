"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def fees_by_doctor(db_path: str) -> dict[str, int]:
    """Return {doctor name: summed fees in cents of completed visits} for every doctor."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT d.name, COALESCE(SUM(CASE WHEN v.status = 'completed'"
            " THEN v.fee_cents END), 0)"
            " FROM doctors d LEFT JOIN visits v ON v.doctor_id = d.id"
            " GROUP BY d.id"
        ).fetchall()
    finally:
        con.close()
    return {name: int(total) for name, total in rows}
