import csv


def cancelled_count(path):
    count = 0
    with open(path, encoding="utf-8", newline="") as agenda:
        for row in csv.reader(agenda):
            status = row[-1].strip().lower() if row else ""
            if status in ("cancelled", "canceled", "cxl", "c", "x"):
                count += 1
    return count
