from solution import is_valid_badge


def test_valid_badges() -> None:
    assert is_valid_badge("AB-1234-3") is True
    assert is_valid_badge("KQ-4071-0") is True
    assert is_valid_badge("MX-9999-3") is True


def test_letter_positions_go_up_to_26() -> None:
    assert is_valid_badge("ZZ-0000-2") is True
    assert is_valid_badge("AA-0000-2") is True
    assert is_valid_badge("ZA-0000-7") is True


def test_wrong_check_digit() -> None:
    assert is_valid_badge("AB-1234-4") is False
    assert is_valid_badge("KQ-4071-3") is False
    assert is_valid_badge("ZZ-0000-1") is False


def test_wrong_characters() -> None:
    assert is_valid_badge("ab-1234-3") is False
    assert is_valid_badge("A1-1234-3") is False
    assert is_valid_badge("AB-12C4-3") is False
    assert is_valid_badge("AB-1234-X") is False
    assert is_valid_badge("AB_1234_3") is False
    assert is_valid_badge("AB 1234 3") is False


def test_wrong_lengths() -> None:
    assert is_valid_badge("") is False
    assert is_valid_badge("AB-123-3") is False
    assert is_valid_badge("ABC-1234-3") is False
    assert is_valid_badge("AB-1234-33") is False
    assert is_valid_badge("AB12343") is False


def test_surrounding_whitespace_is_invalid() -> None:
    assert is_valid_badge(" AB-1234-3") is False
    assert is_valid_badge("AB-1234-3\n") is False
