"""Create the small bookshop SQLite database that the demo and the tests query.

Run as ``python -m tools.sample_db PATH``; the same inputs always give the same data.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import sys
from pathlib import Path

__all__ = ["create_sample_db", "main"]

_SCHEMA = """
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    born INTEGER
);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    genre TEXT NOT NULL,
    year INTEGER NOT NULL,
    price_cents INTEGER NOT NULL
);
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    joined TEXT NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    ordered_at TEXT NOT NULL
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL REFERENCES orders(id),
    book_id INTEGER NOT NULL REFERENCES books(id),
    quantity INTEGER NOT NULL,
    unit_price_cents INTEGER NOT NULL,
    PRIMARY KEY (order_id, book_id)
);
CREATE VIEW book_sales AS
    SELECT b.id AS book_id, b.title, SUM(i.quantity) AS copies,
           SUM(i.quantity * i.unit_price_cents) AS revenue_cents
    FROM books b JOIN order_items i ON i.book_id = b.id
    GROUP BY b.id;
"""

_AUTHORS = [
    (1, "Ursula K. Le Guin", "US", 1929),
    (2, "Stanislaw Lem", "PL", 1921),
    (3, "Octavia E. Butler", "US", 1947),
    (4, "Italo Calvino", "IT", 1923),
    (5, "Chimamanda Ngozi Adichie", "NG", 1977),
    (6, "Haruki Murakami", "JP", 1949),
]

_BOOKS = [
    (1, "A Wizard of Earthsea", 1, "fantasy", 1968, 1299),
    (2, "The Left Hand of Darkness", 1, "science fiction", 1969, 1499),
    (3, "The Dispossessed", 1, "science fiction", 1974, 1599),
    (4, "Solaris", 2, "science fiction", 1961, 1399),
    (5, "The Cyberiad", 2, "science fiction", 1965, 1199),
    (6, "Kindred", 3, "science fiction", 1979, 1399),
    (7, "Parable of the Sower", 3, "science fiction", 1993, 1499),
    (8, "Invisible Cities", 4, "literary", 1972, 1099),
    (9, "If on a winter's night a traveler", 4, "literary", 1979, 1299),
    (10, "Half of a Yellow Sun", 5, "literary", 2006, 1699),
    (11, "Americanah", 5, "literary", 2013, 1799),
    (12, "Kafka on the Shore", 6, "literary", 2002, 1599),
    (13, "Norwegian Wood", 6, "literary", 1987, 1399),
    (14, "Tehanu", 1, "fantasy", 1990, 1299),
]

_CUSTOMERS = [
    (1, "Ada Park", "Lisbon", "2023-01-14"),
    (2, "Bruno Silva", "Porto", "2023-02-03"),
    (3, "Chen Wei", "Lisbon", "2023-03-22"),
    (4, "Dana Novak", "Braga", "2023-05-09"),
    (5, "Emeka Obi", "Lisbon", "2023-06-30"),
    (6, "Farah Haddad", "Porto", "2023-08-11"),
    (7, "Gita Rao", "Coimbra", "2023-09-02"),
    (8, "Hugo Lemaire", "Braga", "2023-11-19"),
]

_ORDER_COUNT = 40
_SEED = 20240601


def _orders(rng: random.Random) -> tuple[list[tuple[int, int, str]], list[tuple[int, ...]]]:
    orders: list[tuple[int, int, str]] = []
    items: list[tuple[int, ...]] = []
    prices = {book[0]: book[5] for book in _BOOKS}
    for order_id in range(1, _ORDER_COUNT + 1):
        customer = rng.randint(1, len(_CUSTOMERS))
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        orders.append((order_id, customer, f"2024-{month:02d}-{day:02d}"))
        for book_id in sorted(rng.sample(sorted(prices), rng.randint(1, 3))):
            items.append((order_id, book_id, rng.randint(1, 3), prices[book_id]))
    return orders, items


def create_sample_db(path: Path) -> Path:
    """Write the sample database to ``path`` (replacing it) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    orders, items = _orders(random.Random(_SEED))  # noqa: S311 - sample data, not crypto
    with contextlib.closing(sqlite3.connect(tmp)) as conn:
        conn.executescript(_SCHEMA)
        conn.executemany("INSERT INTO authors VALUES (?, ?, ?, ?)", _AUTHORS)
        conn.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?)", _BOOKS)
        conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", _CUSTOMERS)
        conn.executemany("INSERT INTO orders VALUES (?, ?, ?)", orders)
        conn.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?)", items)
        conn.commit()
    # Replace atomically so a reader never sees a half-written database.
    os.replace(tmp, path)
    return path


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: ``python -m tools.sample_db PATH``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m tools.sample_db PATH\n")
        return 2
    created = create_sample_db(Path(args[0]))
    sys.stdout.write(f"wrote {created}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
