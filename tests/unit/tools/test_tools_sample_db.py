"""tools.sample_db: the bookshop database the demo and the tests query, the same bytes from
the same inputs, consistent (every order line priced as its book), and its command line."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tools.sample_db import create_sample_db, main

REPO = Path(__file__).resolve().parents[3]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sample_db_is_deterministic_and_runnable_as_module(tmp_path: Path) -> None:
    first = create_sample_db(tmp_path / "a.db")
    second = tmp_path / "b.db"
    subprocess.run(
        [sys.executable, "-m", "tools.sample_db", str(second)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert _digest(first) == _digest(second)
    with sqlite3.connect(second) as conn:
        counts = [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                  for t in ("authors", "books", "customers", "orders")]  # fmt: skip
    conn.close()
    assert counts == [6, 14, 8, 40]


def _one(conn: sqlite3.Connection, query: str) -> tuple[int, ...]:
    row = conn.execute(query).fetchone()
    assert row is not None
    return tuple(row)


def test_every_order_line_is_priced_as_its_book_and_the_view_sums_them(tmp_path: Path) -> None:
    db = create_sample_db(tmp_path / "shop.db")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert _one(
            conn,
            "SELECT count(*) FROM order_items i JOIN books b ON b.id = i.book_id "
            "WHERE i.unit_price_cents != b.price_cents",
        ) == (0,)
        assert _one(
            conn,
            "SELECT count(*) FROM order_items i LEFT JOIN orders o ON o.id = i.order_id "
            "LEFT JOIN books b ON b.id = i.book_id WHERE o.id IS NULL OR b.id IS NULL",
        ) == (0,)
        assert _one(
            conn,
            "SELECT count(*) FROM orders o LEFT JOIN customers c ON c.id = o.customer_id "
            "WHERE c.id IS NULL OR o.ordered_at NOT LIKE '2024-__-__'",
        ) == (0,)
        # every order has one to three lines of one to three copies each
        assert _one(
            conn,
            "SELECT count(*), min(n), max(n) FROM "
            "(SELECT count(*) AS n FROM order_items GROUP BY order_id)",
        ) == (40, 1, 3)
        assert _one(conn, "SELECT min(quantity), max(quantity) FROM order_items") == (1, 3)
        assert _one(conn, "SELECT sum(copies), sum(revenue_cents) FROM book_sales") == _one(
            conn, "SELECT sum(quantity), sum(quantity * unit_price_cents) FROM order_items"
        )


def test_a_new_database_replaces_the_old_file_whole(tmp_path: Path) -> None:
    fresh = create_sample_db(tmp_path / "fresh.db")
    path = tmp_path / "deeper" / "shop.db"  # its folder is made
    assert create_sample_db(path) == path and _digest(path) == _digest(fresh)
    path.write_text("not a database")
    path.with_name("shop.db.tmp").write_text("left by a run that was killed")
    create_sample_db(path)
    assert _digest(path) == _digest(fresh)
    assert sorted(p.name for p in path.parent.iterdir()) == ["shop.db"]


def test_the_command_line_takes_one_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 2 and main(["a.db", "b.db"]) == 2
    assert capsys.readouterr().err == "usage: python -m tools.sample_db PATH\n" * 2
    target = tmp_path / "out" / "shop.db"
    assert main([str(target)]) == 0
    assert capsys.readouterr().out == f"wrote {target}\n"
    assert _digest(target) == _digest(create_sample_db(tmp_path / "same.db"))
