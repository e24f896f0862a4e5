"""Invoice numbers and due dates."""

from datetime import date, timedelta


def invoice_number(year: int, sequence: int) -> str:
    """Return an invoice number such as '2024-0042'."""
    return f"{year}-{sequence:04d}"


def due_date(issued: date, days: int = 30) -> date:
    """Return the date an invoice must be paid by."""
    return issued + timedelta(days=days)
