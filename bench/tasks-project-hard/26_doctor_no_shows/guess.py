"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def doctor_no_shows(db_path: str, doctor: str) -> int:
    """Return the count of no-show visits booked with the named doctor."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM appointments a JOIN doctors d ON d.id = a.doctor_id"
            " WHERE d.name = ? AND a.status = 'no_show'",
            (doctor,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
