from solution import is_valid_hostname


def test_ordinary_names() -> None:
    assert is_valid_hostname("localhost") is True
    assert is_valid_hostname("mail-01.EU.Example.org") is True
    assert is_valid_hostname("x.y") is True
    assert is_valid_hostname("3com.net") is True


def test_trailing_dot() -> None:
    assert is_valid_hostname("example.org.") is True
    assert is_valid_hostname("example.org..") is False
    assert is_valid_hostname(".") is False
    assert is_valid_hostname(".example.org") is False


def test_empty_and_bad_labels() -> None:
    assert is_valid_hostname("") is False
    assert is_valid_hostname("a..b") is False
    assert is_valid_hostname("bad-.example") is False
    assert is_valid_hostname("a.-b.c") is False


def test_other_characters() -> None:
    assert is_valid_hostname("my_host.local") is False
    assert is_valid_hostname("my host.local") is False
    assert is_valid_hostname("bücher.de") is False


def test_label_length() -> None:
    assert is_valid_hostname("a" * 63 + ".com") is True
    assert is_valid_hostname("a" * 64 + ".com") is False


def test_total_length() -> None:
    name = ("a" * 63 + ".") * 3 + "b" * 61
    assert len(name) == 253
    assert is_valid_hostname(name) is True
    assert is_valid_hostname(name + ".") is True
    assert is_valid_hostname(name + "b") is False


def test_numeric_top_level_domain() -> None:
    assert is_valid_hostname("192.168.1.1") is False
    assert is_valid_hostname("host.123") is False
    assert is_valid_hostname("123.host") is True
