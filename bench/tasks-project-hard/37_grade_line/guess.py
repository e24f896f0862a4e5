def grade_line(term, student_id, subject, score):
    if not 0 <= score <= 100:
        raise ValueError(f"score out of range: {score}")
    letter = "F"
    for minimum, grade in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= minimum:
            letter = grade
            break
    return f"{term},{student_id},{subject},{score},{letter}"
