"""The demo task's hidden tests: run beside a copy of the shop database (``shop.db``)."""

import shutil
import sqlite3
import tempfile
from pathlib import Path

from solution import best_selling_title


def _most_copies(path):
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT b.title FROM books b JOIN order_items i ON i.book_id = b.id "
            "GROUP BY b.id ORDER BY SUM(i.quantity) DESC LIMIT 1"
        ).fetchone()[0]


def test_the_shop_best_seller():
    assert best_selling_title("shop.db") == _most_copies("shop.db") == "Kindred"


def test_a_string():
    assert isinstance(best_selling_title("shop.db"), str)


def test_it_reads_the_data_not_a_remembered_answer():
    folder = Path(tempfile.mkdtemp())
    copy = folder / "copy.db"
    shutil.copy("shop.db", copy)
    with sqlite3.connect(copy) as conn:
        solaris = conn.execute("SELECT id FROM books WHERE title = 'Solaris'").fetchone()[0]
        conn.execute(
            "UPDATE order_items SET quantity = quantity + 40 WHERE book_id = ?", (solaris,)
        )
    assert best_selling_title(str(copy)) == "Solaris"


def test_copies_not_orders_count():
    folder = Path(tempfile.mkdtemp())
    copy = folder / "copy.db"
    shutil.copy("shop.db", copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("DELETE FROM order_items WHERE book_id NOT IN (1, 2)")
        conn.execute("UPDATE order_items SET quantity = 1 WHERE book_id = 1")
        conn.execute(
            "UPDATE order_items SET quantity = 50 WHERE rowid = "
            "(SELECT MIN(rowid) FROM order_items WHERE book_id = 2)"
        )
        conn.execute(
            "DELETE FROM order_items WHERE book_id = 2 AND rowid > "
            "(SELECT MIN(rowid) FROM order_items WHERE book_id = 2)"
        )
    # after the with block: it commits there, and another connection sees the change only then
    want = _most_copies(copy)
    assert want == "The Left Hand of Darkness"  # book 2: 50 copies in one order, book 1: 7 in 7
    assert best_selling_title(str(copy)) == want


def test_copies_not_revenue():
    folder = Path(tempfile.mkdtemp())
    copy = folder / "copy.db"
    shutil.copy("shop.db", copy)
    with sqlite3.connect(copy) as conn:  # one dear copy of Solaris outsells Kindred by revenue
        solaris = conn.execute("SELECT id FROM books WHERE title = 'Solaris'").fetchone()[0]
        conn.execute(
            "UPDATE order_items SET unit_price_cents = 1000000 WHERE book_id = ? AND rowid = "
            "(SELECT MIN(rowid) FROM order_items WHERE book_id = ?)",
            (solaris, solaris),
        )
    assert best_selling_title(str(copy)) == _most_copies(copy) == "Kindred"
