import csv


def net_cents(path):
    total = 0
    with open(path, encoding="utf-8", newline="") as export:
        for row in csv.reader(export):
            if not row:
                continue
            try:
                amount = float(row[-1].replace(",", ""))
            except ValueError:
                continue
            total += round(amount * 100)
    return total
