"""Return the sensor's highest reading in degrees Celsius."""

import sqlite3


def max_temperature(db_path: str, sensor: str) -> float:
    """Return the sensor's highest reading in degrees Celsius."""
    con = sqlite3.connect(db_path)
    try:
        row = con.execute(
            "SELECT MAX(rdg_dc) FROM rdg_log WHERE snsr_cd = ?",
            (sensor,),
        ).fetchone()
    finally:
        con.close()
    return row[0] / 10
