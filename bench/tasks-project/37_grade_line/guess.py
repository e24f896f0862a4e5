def grade_line(student_id, subject, score):
    return f"{student_id};{subject};{score}"
