"""Gradebook: read scores from the CSV export and compute averages."""

import csv


def read_scores(path: str = "scores.csv") -> dict[str, list[float]]:
    """Return each student's list of points from the scores file."""
    scores: dict[str, list[float]] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            scores.setdefault(row["student"], []).append(float(row["points"]))
    return scores


def average(values: list[float]) -> float:
    """Return the mean of values, or 0.0 for an empty list."""
    return sum(values) / len(values) if values else 0.0
