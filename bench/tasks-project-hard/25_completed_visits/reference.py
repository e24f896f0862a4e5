"""Reference solution: number of completed visits of a patient."""

import sqlite3


def completed_visits(db_path: str, patient_id: int) -> int:
    """Return the count of the patient's visits whose status is completed."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM pt_visit WHERE pt_id = ? AND vis_stat = 'CMP'", (patient_id,)
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
