"""Reference solution: active customers of one region."""

import sqlite3


def region_customers(db_path: str, region: str) -> list[str]:
    """Return the sorted names of the region's customers that are not voided."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT cst_nm FROM cst_mst WHERE rgn_cd = ? AND is_void = 0 ORDER BY cst_nm",
            (region,),
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
