"""Reference solution: readings outside the warehouse sensor limits."""

import csv


def out_of_range(readings: list[tuple[str, float]]) -> list[int]:
    """Return the indexes of the readings outside their kind's limits."""
    with open("sites/warehouse/limits.csv", newline="", encoding="utf-8") as fh:
        limits = {row["kind"]: row for row in csv.DictReader(fh)}
    bad = []
    for index, (kind, value) in enumerate(readings):
        row = limits.get(kind)
        if row is None:
            continue
        too_low = row["min"] != "" and value < float(row["min"])
        too_high = row["max"] != "" and value > float(row["max"])
        if too_low or too_high:
            bad.append(index)
    return bad
