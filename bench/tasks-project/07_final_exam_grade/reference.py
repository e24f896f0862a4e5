from school.exams import FINAL_EXAM_MAX_POINTS
from school.grading import points_to_grade


def final_exam_grade(points: int) -> float:
    return points_to_grade(points, FINAL_EXAM_MAX_POINTS)
