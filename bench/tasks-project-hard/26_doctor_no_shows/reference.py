"""Reference solution: no-shows of one doctor."""

import sqlite3


def doctor_no_shows(db_path: str, doctor: str) -> int:
    """Return the count of no-show visits booked with the named doctor."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM pt_visit v JOIN dr_roster d ON d.dr_cd = v.dr_cd"
            " WHERE d.dr_nm = ? AND v.vis_stat = 'NSH'",
            (doctor,),
        ).fetchone()
    finally:
        con.close()
    return int(row[0])
