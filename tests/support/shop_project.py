"""A small shop project on disk, and its table database, that the project-map tests read.

Shared by the tests of :mod:`tools.project_map`, :mod:`tools.project_rank` and
:mod:`tools.project_scan`: :func:`write_shop` lays the project out (Python helpers, configs,
data files, docs), :func:`table_db` writes an order database with terse column names, and
:func:`entry_of` / :func:`all_text` read a built map.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tools.project_map import Entry, ProjectMap

PRICING = '''"""Money helpers of the shop."""

from decimal import ROUND_HALF_UP, Decimal

VAT_RATE = 0.2
CURRENCY = "EUR"
_cache = {}


def round_cents(amount: float) -> float:
    """Round to whole cents, halves up."""
    return float(Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class Basket:
    """Items and their prices."""

    def __init__(self) -> None:
        self.items: list[float] = []

    def total(self) -> float:
        return sum(self.items)
'''

ORDERS = """from pricing import VAT_RATE, round_cents


def total_with_vat(net: float) -> float:
    return round_cents(net * (1 + VAT_RATE))


def load_shipping() -> str:
    with open("config/shipping.toml") as handle:
        return handle.read()
"""

SHIPPING = """# Shipping rates by zone, per parcel.
[rates]
eu = 4.50
world = 12.00

[limits]
max_weight_kg = 30
"""


def table_db(path: Path) -> Path:
    """An order database at ``path``: three tables (7 order lines) and a view."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE ord_hdr (ord_no INTEGER PRIMARY KEY, cust TEXT, stat_cd TEXT);
        CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT);
        CREATE TABLE sku_master (sku TEXT PRIMARY KEY, descr TEXT, price REAL);
        CREATE VIEW open_lines AS SELECT * FROM ord_ln WHERE stat_cd != 'CXL';
        """
    )
    conn.executemany(
        "INSERT INTO ord_ln VALUES (?, ?, ?, ?)",
        [(i, f"SKU-{i}", i * 2, "CXL" if i % 3 == 0 else "OK") for i in range(1, 8)],
    )
    conn.executemany("INSERT INTO ord_hdr VALUES (?, ?, ?)", [(1, "ACME", "OK"), (2, "Zed", "CXL")])
    conn.execute("INSERT INTO sku_master VALUES ('SKU-1', 'Widget', 4.5)")
    conn.commit()
    conn.close()
    return path


def write_shop(root: Path) -> Path:
    """Lay the shop project out under ``root`` (created) and return ``root``."""
    (root / "config").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "docs").mkdir()
    (root / "pricing.py").write_text(PRICING)
    (root / "orders.py").write_text(ORDERS)
    (root / "config" / "shipping.toml").write_text(SHIPPING)
    (root / "config" / "logging.json").write_text(json.dumps({"level": "INFO", "handlers": []}))
    (root / "config" / "app.ini").write_text("[server]\nport = 8080\nhost = localhost\n")
    lines = ["date|sku|qty|price"] + [f"2024013{i}|SKU-{i}|{i}|EUR 4.50" for i in range(1, 10)]
    (root / "data" / "sales.txt").write_text("\n".join(lines) + "\n")
    (root / "data" / "stock.csv").write_text("sku,on_hand\nSKU-1,5\nSKU-2,0\n")
    (root / "docs" / "README.md").write_text("# Shop\n\nA tiny shop.\n\n## Usage\n\nRun it.\n")
    return root


def entry_of(project: ProjectMap, path: str, name: str | None = None) -> Entry:
    """The map's first entry of ``path`` (named ``name``, if given); fails the test if none."""
    found = [e for e in project.entries if e.path == path and (name is None or e.name == name)]
    assert found, f"no entry {path}:{name} in {[(e.path, e.name) for e in project.entries]}"
    return found[0]


def all_text(project: ProjectMap) -> str:
    """Every snippet of the map, one after the other."""
    return "\n".join(e.text for e in project.entries)
