import csv


def hours_by_employee(path):
    totals = {}
    with open(path, encoding="utf-8", newline="") as export:
        for row in csv.reader(export):
            if not row or row[0].lower() == "date":
                continue
            employee, hours = row[1].strip(), row[-1].strip()
            totals[employee] = totals.get(employee, 0.0) + float(hours)
    return {employee: round(total, 2) for employee, total in totals.items()}
