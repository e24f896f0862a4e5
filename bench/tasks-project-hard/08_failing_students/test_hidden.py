from solution import failing_students


def test_half_points_is_not_enough() -> None:
    # 10/20 -> 3.5 (fails), 11/20 -> 3.75 -> 4.0 (passes), 12/20 -> 4.0
    assert failing_students({"Ben": 10, "Ana": 11, "Cleo": 12}, 20) == ["Ben"]


def test_rounding_up_to_pass_mark() -> None:
    # 33/60 -> 3.75 -> 4.0 passes; 32/60 -> 3.666 -> 3.5 fails
    assert failing_students({"Mia": 33, "Noah": 32}, 60) == ["Noah"]


def test_sorted_names() -> None:
    scores = {"Zoe": 2, "Luca": 30, "Elena": 5, "Jonas": 17, "Alma": 0}
    # 2/30 -> 1.5, 30/30 -> 6, 5/30 -> 2.0, 17/30 -> 3.83 -> 4.0, 0 -> 1
    assert failing_students(scores, 30) == ["Alma", "Elena", "Zoe"]


def test_everyone_passes() -> None:
    assert failing_students({"Ida": 40, "Tim": 24}, 40) == []


def test_just_above_half_still_fails() -> None:
    # 27/50 -> 3.7 -> 3.5
    assert failing_students({"Leon": 27, "Sara": 28}, 50) == ["Leon"]


def test_empty() -> None:
    assert failing_students({}, 10) == []
