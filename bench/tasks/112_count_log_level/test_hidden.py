from solution import count_log_level


def test_counts_the_matching_lines() -> None:
    lines = ["ERROR disk full", "INFO started", "ERROR timeout", "WARN slow"]
    assert count_log_level(lines, "ERROR") == 2
    assert count_log_level(lines, "WARN") == 1


def test_case_is_ignored() -> None:
    lines = ["error a", "Error b", "ERROR c", "info d"]
    assert count_log_level(lines, "error") == 3
    assert count_log_level(lines, "Info") == 1


def test_only_the_whole_first_word_counts() -> None:
    assert count_log_level(["INFO retry after ERROR", "DEBUG ERROR seen"], "ERROR") == 0
    assert count_log_level(["ERRORS x", "ERROR", "ERROR y"], "ERROR") == 2


def test_leading_spaces_and_blank_lines() -> None:
    assert count_log_level(["  WARN low memory", "", "   ", "WARN x"], "WARN") == 2


def test_empty_log() -> None:
    assert count_log_level([], "INFO") == 0


def test_no_match() -> None:
    assert count_log_level(["INFO a", "INFO b"], "ERROR") == 0
