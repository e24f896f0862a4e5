"""Return the number of visits on record for the patient."""

import sqlite3


def visit_count(db_path: str, patient_id: int) -> int:
    """Return the number of visits on record for the patient."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM visits WHERE patient_id = ?",
            (patient_id,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
