"""Build workspace/library.db for this task, deterministically."""

import sqlite3
from pathlib import Path

DB = Path(__file__).parent / "workspace" / "library.db"

BOOKS = [
    (1, "The Salt Road", "Ines Marlow", "9780000000019", "FIC-MAR"),
    (2, "Winter Orchard", "Paul Abara", "9780000000026", "FIC-ABA"),
    (3, "A Map of Small Rivers", "June Castell", "9780000000033", "GEO-CAS"),
    (4, "Copper and Glass", "Ravi Desai", "9780000000040", "TEC-DES"),
    (5, "The Quiet Engineer", "Lena Holt", "9780000000057", "TEC-HOL"),
    (6, "Birds of the Estuary", "Tom Ferris", "9780000000064", "NAT-FER"),
    (7, "Night Ferry", "Ines Marlow", "9780000000071", "FIC-MAR"),
    (8, "Ledger of Clouds", "Ada Kim", "9780000000088", "FIC-KIM"),
    (9, "Stone Garden", "Paul Abara", "9780000000095", "FIC-ABA"),
    (10, "Harbor Lights", "June Castell", "9780000000101", "FIC-CAS"),
]

MEMBERS = [
    ("M-014", "Nora Quill", "STD", 0),
    ("M-027", "Omar Reyes", "STU", 0),
    ("M-031", "Pia Lund", "SNR", 0),
    ("M-045", "Quentin Shaw", "STD", 1),
    ("M-052", "Rosa Imai", "STU", 0),
    ("M-060", "Sam Okoro", "STD", 0),
]

# ln_id, bk_id, mbr_no, out_ymd, due_ymd, ret_ymd (None while the book is out)
LOANS = [
    (1, 1, "M-014", "20240102", "20240116", "20240114"),
    (2, 2, "M-014", "20240110", "20240124", None),
    (3, 3, "M-027", "20240111", "20240125", "20240130"),
    (4, 4, "M-031", "20240115", "20240129", None),
    (5, 5, "M-014", "20240120", "20240203", None),
    (6, 6, "M-045", "20240122", "20240205", None),
    (7, 7, "M-052", "20240125", "20240208", "20240207"),
    (8, 8, "M-027", "20240128", "20240211", None),
    (9, 1, "M-060", "20240201", "20240215", None),
    (10, 9, "M-031", "20240203", "20240217", "20240216"),
    (11, 10, "M-052", "20240205", "20240219", None),
    (12, 3, "M-014", "20240206", "20240220", "20240219"),
]

# fn_id, mbr_no, fn_c, pd_flg (Y paid, N open, W waived), fn_rsn
FINES = [
    (1, "M-027", 150, "Y", "LATE"),
    (2, "M-014", 200, "N", "LATE"),
    (3, "M-014", 1250, "N", "DMG"),
    (4, "M-045", 900, "N", "DMG"),
    (5, "M-014", 300, "W", "LATE"),
    (6, "M-031", 75, "Y", "LATE"),
    (7, "M-027", 400, "N", "LATE"),
    (8, "M-052", 120, "W", "LATE"),
]


def build() -> None:
    """Create the database from the rows above."""
    DB.unlink(missing_ok=True)
    con = sqlite3.connect(DB)
    con.executescript(
        """
        CREATE TABLE bk_cat (bk_id INTEGER PRIMARY KEY, ttl_txt TEXT NOT NULL, auth_txt TEXT,
                             isbn13 TEXT, shelf_cd TEXT);
        CREATE TABLE mbr_lst (mbr_no TEXT PRIMARY KEY, mbr_nm TEXT, tier_cd TEXT,
                              is_susp INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE ln_rec (ln_id INTEGER PRIMARY KEY, bk_id INTEGER, mbr_no TEXT,
                             out_ymd TEXT, due_ymd TEXT, ret_ymd TEXT);
        CREATE TABLE fine_lg (fn_id INTEGER PRIMARY KEY, mbr_no TEXT, fn_c INTEGER,
                              pd_flg TEXT, fn_rsn TEXT);
        """
    )
    con.executemany("INSERT INTO bk_cat VALUES (?, ?, ?, ?, ?)", BOOKS)
    con.executemany("INSERT INTO mbr_lst VALUES (?, ?, ?, ?)", MEMBERS)
    con.executemany("INSERT INTO ln_rec VALUES (?, ?, ?, ?, ?, ?)", LOANS)
    con.executemany("INSERT INTO fine_lg VALUES (?, ?, ?, ?, ?)", FINES)
    con.commit()
    con.close()


if __name__ == "__main__":
    build()
