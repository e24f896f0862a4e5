"""CSV export for the school office."""

import csv
import io


def export_csv(class_name: str, grades: dict[str, float]) -> str:
    """Return the grades of a class as CSV with a header line, sorted by name."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["class", "student", "grade"])
    for name in sorted(grades):
        writer.writerow([class_name, name, f"{grades[name]:.1f}"])
    return out.getvalue()
