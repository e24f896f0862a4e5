from solution import most_common_letter


def test_clear_winner() -> None:
    assert most_common_letter("banana") == "a"
    assert most_common_letter("mississippi river") == "i"


def test_case_insensitive_and_lowercase_result() -> None:
    assert most_common_letter("BbBa") == "b"
    assert most_common_letter("ZZZ") == "z"


def test_other_characters_ignored() -> None:
    assert most_common_letter("1111 x!!! ...") == "x"


def test_tie_goes_to_the_earliest_letter() -> None:
    assert most_common_letter("cab") == "a"
    assert most_common_letter("zzyy") == "y"


def test_no_letters_returns_none() -> None:
    assert most_common_letter("") is None
    assert most_common_letter("123 !?") is None
