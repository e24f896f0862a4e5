from solution import is_valid_username


def test_valid_names() -> None:
    assert is_valid_username("bob") is True
    assert is_valid_username("alice_99") is True
    assert is_valid_username("a1_b2_c3") is True


def test_length_bounds() -> None:
    assert is_valid_username("ab") is False
    assert is_valid_username("abc") is True
    assert is_valid_username("a" * 16) is True
    assert is_valid_username("a" * 17) is False
    assert is_valid_username("") is False


def test_first_character_must_be_lowercase_letter() -> None:
    assert is_valid_username("1abc") is False
    assert is_valid_username("_abc") is False
    assert is_valid_username("Abc") is False


def test_only_allowed_characters() -> None:
    assert is_valid_username("abC") is False
    assert is_valid_username("ab-c") is False
    assert is_valid_username("ab c") is False
    assert is_valid_username("caf\u00e9") is False
    assert is_valid_username("ab\u00b2c") is False


def test_underscore_rules() -> None:
    assert is_valid_username("a__b") is False
    assert is_valid_username("ab_") is False
    assert is_valid_username("a_b_c") is True
