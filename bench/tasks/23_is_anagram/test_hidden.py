from solution import is_anagram


def test_simple_anagrams() -> None:
    assert is_anagram("listen", "silent") is True
    assert is_anagram("evil", "vile") is True


def test_ignores_case_and_spaces() -> None:
    assert is_anagram("Dormitory", "Dirty room") is True
    assert is_anagram("The eyes", "They see") is True


def test_different_letters() -> None:
    assert is_anagram("abc", "abd") is False
    assert is_anagram("hello", "world") is False


def test_letter_counts_matter() -> None:
    assert is_anagram("aab", "abb") is False
    assert is_anagram("abc", "abcc") is False


def test_empty_strings() -> None:
    assert is_anagram("", "") is True
    assert is_anagram("a", "") is False
