import csv


def hours_by_employee(path):
    minutes = {}
    with open(path, encoding="utf-8", newline="") as export:
        for row in csv.reader(export):
            if not row:
                continue
            _day, _project, employee, booked = row
            minutes[employee] = minutes.get(employee, 0) + int(booked)
    return {employee: round(total / 60, 2) for employee, total in minutes.items()}
