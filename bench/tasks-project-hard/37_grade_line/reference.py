import configparser


def grade_line(term, student_id, subject, score):
    if not 0 <= score <= 100:
        raise ValueError(f"score out of range: {score}")
    config = configparser.ConfigParser()
    config.read("config/grading.ini", encoding="utf-8")
    scale = sorted(
        ((int(minimum), letter.upper()) for letter, minimum in config["scale"].items()),
        reverse=True,
    )
    letter = next(letter for minimum, letter in scale if score >= minimum)
    return f"GRD|{term}|{student_id}|{subject}|{score:03d}|{letter}"
