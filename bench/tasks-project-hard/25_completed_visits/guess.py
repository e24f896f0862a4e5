"""Best guess without seeing the project: the usual table and column names."""

import sqlite3


def completed_visits(db_path: str, patient_id: int) -> int:
    """Return the count of the patient's visits whose status is completed."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM visits WHERE patient_id = ? AND status = 'completed'",
            (patient_id,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
