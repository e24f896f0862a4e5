def grade_line(student_id, subject, score):
    return f"NOTE;{subject};{student_id};{score}"
