"""Reference solution: fees of completed visits per doctor."""

import sqlite3


def fees_by_doctor(db_path: str) -> dict[str, int]:
    """Return {doctor name: summed fees in cents of completed visits} for every doctor."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT d.dr_nm, COALESCE(SUM(CASE WHEN v.vis_stat = 'CMP' THEN v.fee_c END), 0)"
            " FROM dr_roster d LEFT JOIN pt_visit v ON v.dr_cd = d.dr_cd"
            " GROUP BY d.dr_cd"
        ).fetchall()
    finally:
        con.close()
    return {name: int(total) for name, total in rows}
