"""Reference solution: compare a reading with the sensor's upper limit."""

import csv


def is_too_hot(sensor_id: str, celsius: float) -> bool:
    """Return True if the reading is above the sensor's upper limit."""
    with open("data/thresholds.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["sensor_id"] == sensor_id:
                return celsius > float(row["max_c"])
    raise KeyError(sensor_id)
