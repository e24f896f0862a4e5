from solution import is_valid_ipv4


def test_valid_addresses() -> None:
    assert is_valid_ipv4("192.168.0.1") is True
    assert is_valid_ipv4("0.0.0.0") is True
    assert is_valid_ipv4("255.255.255.255") is True


def test_number_out_of_range() -> None:
    assert is_valid_ipv4("256.1.1.1") is False
    assert is_valid_ipv4("1.1.1.300") is False


def test_wrong_number_of_parts() -> None:
    assert is_valid_ipv4("1.2.3") is False
    assert is_valid_ipv4("1.2.3.4.5") is False
    assert is_valid_ipv4("") is False


def test_leading_zeros() -> None:
    assert is_valid_ipv4("01.2.3.4") is False
    assert is_valid_ipv4("1.2.3.00") is False


def test_empty_parts_and_other_characters() -> None:
    assert is_valid_ipv4("1..2.3") is False
    assert is_valid_ipv4("1.2.3.a") is False
    assert is_valid_ipv4("1.2.3.-4") is False
    assert is_valid_ipv4(" 1.2.3.4") is False
    assert is_valid_ipv4("1.2.3.+4") is False
