"""Return the name of the doctor of the visit."""

import sqlite3


def visit_doctor(db_path: str, visit_id: int) -> str:
    """Return the name of the doctor of the visit."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT d.name FROM visits v JOIN doctors d ON d.id = v.doctor_id WHERE v.id = ?",
            (visit_id,),
        ).fetchone()
    finally:
        con.close()
    return row[0]
