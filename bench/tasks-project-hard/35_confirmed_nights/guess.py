import csv


def confirmed_nights(path, room):
    total = 0
    with open(path, encoding="utf-8", newline="") as export:
        lines = [line for line in export if line.strip() and not line.startswith("#")]
    for row in csv.DictReader(lines):
        status = (row.get("status") or "").strip().lower()
        if (row.get("room") or "").strip() == room and status == "confirmed":
            total += int(row.get("nights") or 0)
    return total
