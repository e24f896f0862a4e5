"""Build workspace/sensors.db for this task, deterministically."""

import sqlite3
from pathlib import Path

DB = Path(__file__).parent / "workspace" / "sensors.db"

SENSORS = [
    ("GH-01", "Greenhouse north bench", "TMP", "20230411"),
    ("GH-02", "Greenhouse south bench", "TMP", "20230411"),
    ("GH-03", "Propagation room", "TMP", "20230902"),
    ("SH-01", "Potting shed", "TMP", "20240115"),
    ("WT-01", "Rain barrel", "LVL", "20240115"),
]

# snsr_cd, ts_utc, rdg_dc (temperature in tenths of a degree Celsius)
READINGS = [
    ("GH-01", "2024-05-01T06:00Z", 142),
    ("GH-02", "2024-05-01T06:00Z", 151),
    ("GH-03", "2024-05-01T06:00Z", 205),
    ("SH-01", "2024-05-01T06:00Z", 87),
    ("GH-01", "2024-05-01T09:00Z", 198),
    ("GH-02", "2024-05-01T09:00Z", 207),
    ("GH-03", "2024-05-01T09:00Z", 211),
    ("SH-01", "2024-05-01T09:00Z", 121),
    ("GH-01", "2024-05-01T12:00Z", 263),
    ("GH-02", "2024-05-01T12:00Z", 234),
    ("GH-03", "2024-05-01T12:00Z", 219),
    ("SH-01", "2024-05-01T12:00Z", 165),
    ("GH-01", "2024-05-01T15:00Z", 251),
    ("GH-02", "2024-05-01T15:00Z", 229),
    ("GH-03", "2024-05-01T15:00Z", 214),
    ("SH-01", "2024-05-01T15:00Z", 172),
    ("GH-01", "2024-05-01T18:00Z", 187),
    ("GH-02", "2024-05-01T18:00Z", 176),
    ("GH-03", "2024-05-01T18:00Z", 208),
    ("SH-01", "2024-05-01T18:00Z", 109),
]

# snsr_cd, ts_utc, batt_mv
BATTERY = [
    ("GH-01", "2024-05-01T00:00Z", 3012),
    ("GH-02", "2024-05-01T00:00Z", 2987),
    ("GH-03", "2024-05-01T00:00Z", 3120),
    ("SH-01", "2024-05-01T00:00Z", 2755),
    ("WT-01", "2024-05-01T00:00Z", 3301),
]


def build() -> None:
    """Create the database from the rows above."""
    DB.unlink(missing_ok=True)
    con = sqlite3.connect(DB)
    con.executescript(
        """
        CREATE TABLE snsr_reg (snsr_cd TEXT PRIMARY KEY, loc_txt TEXT, kind_cd TEXT,
                               inst_ymd TEXT);
        CREATE TABLE rdg_log (rdg_id INTEGER PRIMARY KEY, snsr_cd TEXT, ts_utc TEXT,
                              rdg_dc INTEGER);
        CREATE TABLE batt_log (snsr_cd TEXT, ts_utc TEXT, batt_mv INTEGER);
        """
    )
    con.executemany("INSERT INTO snsr_reg VALUES (?, ?, ?, ?)", SENSORS)
    con.executemany("INSERT INTO rdg_log (snsr_cd, ts_utc, rdg_dc) VALUES (?, ?, ?)", READINGS)
    con.executemany("INSERT INTO batt_log VALUES (?, ?, ?)", BATTERY)
    con.commit()
    con.close()


if __name__ == "__main__":
    build()
