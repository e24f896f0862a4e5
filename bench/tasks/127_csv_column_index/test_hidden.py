from solution import csv_column_index


def test_found() -> None:
    assert csv_column_index("id,name,email", "id") == 0
    assert csv_column_index("id,name,email", "email") == 2


def test_case_is_ignored() -> None:
    assert csv_column_index("ID,Name,EMAIL", "email") == 2
    assert csv_column_index("id,name", "NAME") == 1


def test_spaces_are_ignored() -> None:
    assert csv_column_index("id , name ,  city", "city") == 2
    assert csv_column_index("id,name", " name ") == 1


def test_first_match_wins() -> None:
    assert csv_column_index("a,b,B,b", "b") == 1


def test_missing() -> None:
    assert csv_column_index("id,name", "phone") == -1
    assert csv_column_index("id,name", "na") == -1


def test_empty_header() -> None:
    assert csv_column_index("", "id") == -1
