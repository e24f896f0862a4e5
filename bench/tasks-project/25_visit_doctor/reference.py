"""Return the name of the doctor of the visit."""

import sqlite3


def visit_doctor(db_path: str, visit_id: int) -> str:
    """Return the name of the doctor of the visit."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT d.dr_nm FROM pt_visit v JOIN dr_roster d ON d.dr_cd = v.dr_cd"
            " WHERE v.vis_id = ?",
            (visit_id,),
        ).fetchone()
    finally:
        con.close()
    return row[0]
