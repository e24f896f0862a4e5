"""Build workspace/shop.db for this task, deterministically."""

import sqlite3
from pathlib import Path

DB = Path(__file__).parent / "workspace" / "shop.db"

CUSTOMERS = [
    (1, "Ada Lovelace", "NTH", 0),
    (2, "Brook Harlan", "STH", 0),
    (3, "Cyrus Obi", "NTH", 1),
    (4, "Dana Whit", "WST", 0),
    (5, "Emil Sarr", "NTH", 0),
    (6, "Fern Dale", "STH", 1),
    (7, "Gus Moreno", "WST", 0),
    (8, "Hana Ito", "NTH", 0),
]

SKUS = [
    ("TEA-01", "Green tea, 100 g", "TEA", 650),
    ("TEA-02", "Black tea, 100 g", "TEA", 820),
    ("MUG-01", "Stoneware mug", "WARE", 1200),
    ("KTL-01", "Gooseneck kettle", "WARE", 3490),
    ("FLT-01", "Filter papers, 100", "ACC", 275),
    ("HNY-01", "Forest honey, 250 g", "FOOD", 940),
]

# ord_no, cst_id, ord_dt, ord_stat, [(sku_cd, qty_ord, qty_shipped), ...]
ORDERS = [
    (1001, 1, "2024-03-02", "SHP", [("TEA-01", 2, 2), ("MUG-01", 1, 1)]),
    (1002, 2, "2024-03-03", "SHP", [("KTL-01", 1, 1), ("FLT-01", 4, 3)]),
    (1003, 1, "2024-03-05", "CXL", [("HNY-01", 3, 0)]),
    (1004, 4, "2024-03-06", "PND", [("TEA-02", 2, 0)]),
    (1005, 5, "2024-03-07", "SHP", [("TEA-01", 1, 1), ("TEA-02", 1, 1), ("HNY-01", 2, 2)]),
    (1006, 1, "2024-03-09", "PCK", [("FLT-01", 10, 0)]),
    (1007, 3, "2024-03-10", "CXL", [("MUG-01", 2, 0)]),
    (1008, 7, "2024-03-11", "PND", [("KTL-01", 1, 0), ("TEA-01", 3, 0)]),
    (1009, 2, "2024-03-12", "CXL", [("TEA-02", 5, 0)]),
    (1010, 8, "2024-03-14", "SHP", [("MUG-01", 4, 4), ("FLT-01", 2, 2)]),
    (1011, 5, "2024-03-15", "PND", [("HNY-01", 1, 0)]),
    (1012, 1, "2024-03-16", "SHP", [("TEA-01", 5, 4)]),
    (1013, 4, "2024-03-18", "SHP", [("KTL-01", 2, 2)]),
]


def build() -> None:
    """Create the database from the rows above."""
    DB.unlink(missing_ok=True)
    price = {sku: cents for sku, _, _, cents in SKUS}
    con = sqlite3.connect(DB)
    con.executescript(
        """
        CREATE TABLE cst_mst (cst_id INTEGER PRIMARY KEY, cst_nm TEXT NOT NULL,
                              rgn_cd TEXT NOT NULL, is_void INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE sku_ref (sku_cd TEXT PRIMARY KEY, sku_desc TEXT, cat_cd TEXT,
                              list_prc_c INTEGER);
        CREATE TABLE ord_hdr (ord_no INTEGER PRIMARY KEY, cst_id INTEGER, ord_dt TEXT,
                              ord_stat TEXT, amt_c INTEGER);
        CREATE TABLE ord_ln (ord_no INTEGER, ln_no INTEGER, sku_cd TEXT, qty_ord INTEGER,
                             qty_shipped INTEGER, unit_prc_c INTEGER,
                             PRIMARY KEY (ord_no, ln_no));
        """
    )
    con.executemany("INSERT INTO cst_mst VALUES (?, ?, ?, ?)", CUSTOMERS)
    con.executemany("INSERT INTO sku_ref VALUES (?, ?, ?, ?)", SKUS)
    for ord_no, cst_id, ord_dt, stat, lines in ORDERS:
        amount = sum(qty * price[sku] for sku, qty, _ in lines)
        con.execute(
            "INSERT INTO ord_hdr VALUES (?, ?, ?, ?, ?)", (ord_no, cst_id, ord_dt, stat, amount)
        )
        for ln_no, (sku, qty, shipped) in enumerate(lines, start=1):
            con.execute(
                "INSERT INTO ord_ln VALUES (?, ?, ?, ?, ?, ?)",
                (ord_no, ln_no, sku, qty, shipped, price[sku]),
            )
    con.commit()
    con.close()


if __name__ == "__main__":
    build()
