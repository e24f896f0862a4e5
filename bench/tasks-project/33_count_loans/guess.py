import csv


def count_loans(path):
    count = 0
    with open(path, encoding="utf-8", newline="") as log:
        for row in csv.reader(log):
            if not row or row[0].startswith("#"):
                continue
            words = " ".join(row).lower()
            if "renew" in words:
                continue
            if any(word in words for word in ("checkout", "check-out", "loan", "lend", "issue")):
                count += 1
    return count
