"""Reference solution: letter grade from the course's current scale."""

import configparser
import math


def letter_grade(points: float, max_points: float) -> str:
    """Return the letter grade for points out of max_points."""
    config = configparser.ConfigParser()
    config.read("grading.ini")
    percent = points / max_points * 100
    if config.getboolean("policy", "round_percent"):
        percent = math.floor(percent + 0.5)
    scale = config["scale"]
    for letter in ("A", "B", "C", "D"):
        if percent >= scale.getfloat(letter):
            return letter
    return "F"
