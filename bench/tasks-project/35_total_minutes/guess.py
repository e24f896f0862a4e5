import csv


def total_minutes(path, employee):
    total = 0
    with open(path, encoding="utf-8", newline="") as export:
        for row in csv.reader(export):
            if len(row) >= 2 and row[0].strip() == employee:
                try:
                    total += int(row[-1])
                except ValueError:
                    continue
    return total
