"""The exams of this term."""

from datetime import date

MIDTERM_MAX_POINTS = 40
FINAL_EXAM_MAX_POINTS = 56
MIDTERM_DATE = date(2025, 3, 14)
FINAL_EXAM_DATE = date(2025, 6, 20)
FINAL_EXAM_WEIGHT = 2  # counts twice as much as a midterm
