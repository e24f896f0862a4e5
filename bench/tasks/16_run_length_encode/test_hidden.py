from solution import run_length_encode


def test_example() -> None:
    assert run_length_encode("aaabcc") == "a3b1c2"


def test_single_characters() -> None:
    assert run_length_encode("abc") == "a1b1c1"


def test_repeated_runs_of_the_same_character() -> None:
    assert run_length_encode("aabbaa") == "a2b2a2"


def test_long_run() -> None:
    assert run_length_encode("z" * 12) == "z12"


def test_case_and_spaces() -> None:
    assert run_length_encode("aA") == "a1A1"
    assert run_length_encode("  x") == " 2x1"


def test_empty() -> None:
    assert run_length_encode("") == ""
