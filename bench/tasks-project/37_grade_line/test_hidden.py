from solution import grade_line


def test_math_result() -> None:
    assert grade_line("S-1042", "MAT", 87) == "NOTE;MAT;S-1042;87"


def test_other_subject() -> None:
    assert grade_line("S-1200", "HIS", 65) == "NOTE;HIS;S-1200;65"


def test_low_and_full_scores() -> None:
    assert grade_line("S-1077", "BIO", 0) == "NOTE;BIO;S-1077;0"
    assert grade_line("S-1103", "ENG", 100) == "NOTE;ENG;S-1103;100"


def test_same_as_existing_report() -> None:
    with open("reports/term_2024-1.txt", encoding="utf-8") as report:
        lines = report.read().splitlines()
    assert grade_line("S-1042", "ENG", 74) == lines[2]
    assert grade_line("S-1077", "BIO", 58) == lines[4]
