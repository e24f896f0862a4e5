import csv


def statement_total(path):
    total = 0
    with open(path, encoding="utf-8", newline="") as statement:
        for row in csv.reader(statement):
            if not row:
                continue
            amount = row[-1].strip()
            try:
                total += round(float(amount) * 100)
            except ValueError:
                continue
    return total
