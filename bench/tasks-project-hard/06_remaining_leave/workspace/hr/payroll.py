"""Monthly payroll export for the fiduciary."""

import csv
import io

from hr.errors import PayrollLocked

EXPORT_COLUMNS = ("staff_no", "month", "gross_rappen")


def export_month(rows: list[tuple[str, str, int]], locked: set[str]) -> str:
    """Return the CSV export of a month's payroll rows.

    Args:
        rows: ``(staff_no, month, gross_rappen)`` tuples.
        locked: Months already exported, as ``YYYY-MM``.

    Returns:
        The CSV text.

    Raises:
        PayrollLocked: If a row belongs to a month already exported.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        if row[1] in locked:
            raise PayrollLocked(row[1])
        writer.writerow(row)
    return out.getvalue()
