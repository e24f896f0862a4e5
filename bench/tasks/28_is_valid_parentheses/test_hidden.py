from solution import is_valid_parentheses


def test_balanced() -> None:
    assert is_valid_parentheses("()") is True
    assert is_valid_parentheses("()[]{}") is True
    assert is_valid_parentheses("{[()()]}") is True


def test_wrong_kind_or_order() -> None:
    assert is_valid_parentheses("(]") is False
    assert is_valid_parentheses("([)]") is False
    assert is_valid_parentheses(")(") is False


def test_unclosed_or_unopened() -> None:
    assert is_valid_parentheses("((") is False
    assert is_valid_parentheses("())") is False


def test_other_characters_ignored() -> None:
    assert is_valid_parentheses("f(x[1]) + {y}") is True
    assert is_valid_parentheses("a(b") is False


def test_empty_and_no_brackets() -> None:
    assert is_valid_parentheses("") is True
    assert is_valid_parentheses("abc") is True
