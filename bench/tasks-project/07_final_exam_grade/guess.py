"""Best guess from task.txt: Swiss 1-6 scale, 60 points, rounded to half grades."""


def final_exam_grade(points: int) -> float:
    return round((5 * points / 60 + 1) * 2) / 2
