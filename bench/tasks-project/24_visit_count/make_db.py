"""Build workspace/clinic.db for this task, deterministically."""

import sqlite3
from pathlib import Path

DB = Path(__file__).parent / "workspace" / "clinic.db"

DOCTORS = [
    ("D01", "Amara Flint", "GP"),
    ("D02", "Luis Ortega", "DERM"),
    ("D03", "Mei Tanaka", "PED"),
    ("D04", "Otto Brandt", "GP"),
    ("D05", "Ines Vale", "CARD"),
]

PATIENTS = [
    (501, "Rhea", "Moss", "19840312", 0),
    (502, "Tobias", "Grell", "19570921", 0),
    (503, "Uma", "Pike", "20150604", 0),
    (504, "Victor", "Lasko", "19721130", 0),
    (505, "Wren", "Adair", "19990217", 0),
    (506, "Xavi", "Pons", "20180809", 0),
    (507, "Yara", "Bello", "19630405", 1),
    (508, "Zane", "Moss", "19911023", 0),
    (509, "Aiko", "Reyes", "19800101", 0),
]

# vis_id, pt_id, dr_cd, vis_dt, vis_stat, fee_c
VISITS = [
    (1, 501, "D01", "2024-01-08", "CMP", 4500),
    (2, 502, "D02", "2024-01-09", "CMP", 8000),
    (3, 503, "D01", "2024-01-09", "NSH", 0),
    (4, 501, "D03", "2024-01-15", "XLD", 0),
    (5, 504, "D04", "2024-01-16", "CMP", 4500),
    (6, 505, "D02", "2024-01-17", "NSH", 0),
    (7, 501, "D01", "2024-02-02", "CMP", 4500),
    (8, 502, "D01", "2024-02-05", "NSH", 0),
    (9, 506, "D03", "2024-02-06", "CMP", 6000),
    (10, 503, "D01", "2024-02-12", "CMP", 4500),
    (11, 507, "D02", "2024-02-13", "XLD", 0),
    (12, 501, "D02", "2024-02-20", "CMP", 8000),
    (13, 504, "D01", "2024-03-01", "NSH", 0),
    (14, 505, "D04", "2024-03-04", "CMP", 5200),
    (15, 506, "D03", "2024-03-05", "NSH", 0),
    (16, 501, "D01", "2024-03-11", "BKD", 4500),
    (17, 502, "D02", "2024-03-12", "BKD", 8000),
    (18, 507, "D04", "2024-03-13", "CMP", 5200),
    (19, 508, "D01", "2024-03-14", "NSH", 2500),
    (20, 503, "D03", "2024-03-18", "CMP", 6000),
    (21, 509, "D05", "2024-03-20", "BKD", 7000),
]


def build() -> None:
    """Create the database from the rows above."""
    DB.unlink(missing_ok=True)
    con = sqlite3.connect(DB)
    con.executescript(
        """
        CREATE TABLE dr_roster (dr_cd TEXT PRIMARY KEY, dr_nm TEXT NOT NULL, spec_cd TEXT);
        CREATE TABLE pt_reg (pt_id INTEGER PRIMARY KEY, pt_fnm TEXT, pt_lnm TEXT,
                             dob_ymd TEXT, is_dcsd INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE pt_visit (vis_id INTEGER PRIMARY KEY, pt_id INTEGER, dr_cd TEXT,
                               vis_dt TEXT, vis_stat TEXT, fee_c INTEGER);
        """
    )
    con.executemany("INSERT INTO dr_roster VALUES (?, ?, ?)", DOCTORS)
    con.executemany("INSERT INTO pt_reg VALUES (?, ?, ?, ?, ?)", PATIENTS)
    con.executemany("INSERT INTO pt_visit VALUES (?, ?, ?, ?, ?, ?)", VISITS)
    con.commit()
    con.close()


if __name__ == "__main__":
    build()
