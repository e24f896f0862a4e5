from collections.abc import Callable

from solution import grade_line


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_plus_grade() -> None:
    assert grade_line("2024S1", "S-0042", "MATH", 87) == "GRD|2024S1|S-0042|MATH|087|B+"


def test_scale_boundaries() -> None:
    assert grade_line("2024S2", "S-0107", "CHEM", 92) == "GRD|2024S2|S-0107|CHEM|092|A"
    assert grade_line("2024S2", "S-0107", "CHEM", 91) == "GRD|2024S2|S-0107|CHEM|091|B+"
    assert grade_line("2024S2", "S-0107", "CHEM", 76) == "GRD|2024S2|S-0107|CHEM|076|B"
    assert grade_line("2024S2", "S-0107", "CHEM", 63) == "GRD|2024S2|S-0107|CHEM|063|C"
    assert grade_line("2024S2", "S-0107", "CHEM", 50) == "GRD|2024S2|S-0107|CHEM|050|D"
    assert grade_line("2024S2", "S-0107", "CHEM", 49) == "GRD|2024S2|S-0107|CHEM|049|F"


def test_extremes() -> None:
    assert grade_line("2024S1", "S-0107", "HIST", 100) == "GRD|2024S1|S-0107|HIST|100|A"
    assert grade_line("2024S1", "S-0231", "BIOL", 0) == "GRD|2024S1|S-0231|BIOL|000|F"


def test_same_as_existing_report() -> None:
    with open("reports/term_2024S1.txt", encoding="utf-8") as report:
        lines = report.read().splitlines()
    assert grade_line("2024S1", "S-0231", "BIOL", 8) == lines[-1]
    assert grade_line("2024S1", "S-0042", "HIST", 64) == lines[2]


def test_out_of_range() -> None:
    assert raises(ValueError, grade_line, "2024S1", "S-0042", "MATH", 101)
    assert raises(ValueError, grade_line, "2024S1", "S-0042", "MATH", -1)
