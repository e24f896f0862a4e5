"""Monthly export of the time clock bookings."""

import csv
from datetime import date


def export_month(path: str, bookings: list[tuple[date, str, str, int]]) -> int:
    """Write the bookings of one month to a CSV export, without header.

    Each row holds the day (YYYYMMDD), the project code, the employee id and
    the minutes booked, in that order.

    Args:
        path: The file to write.
        bookings: Tuples of (day, employee id, project code, minutes).

    Returns:
        The number of rows written.
    """
    with open(path, "w", encoding="utf-8", newline="") as export:
        writer = csv.writer(export)
        for day, employee, project, minutes in bookings:
            writer.writerow([day.strftime("%Y%m%d"), project, employee, minutes])
    return len(bookings)
