from solution import split_tags


def test_split_and_stripped() -> None:
    assert split_tags("news , sport,weather") == ["news", "sport", "weather"]


def test_lower_case() -> None:
    assert split_tags("Python,SQL") == ["python", "sql"]


def test_inner_spaces_kept() -> None:
    assert split_tags(" Deep  Learning , AI ") == ["deep  learning", "ai"]


def test_empty_tags_dropped() -> None:
    assert split_tags(",a,, ,b,") == ["a", "b"]


def test_repeated_tags_kept() -> None:
    assert split_tags("go, Go") == ["go", "go"]


def test_no_tags() -> None:
    assert split_tags("") == []
    assert split_tags("  ") == []
    assert split_tags(", ,") == []
