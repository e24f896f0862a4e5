from solution import compare_versions


def test_equal_versions() -> None:
    assert compare_versions("1.2.3", "1.2.3") == 0
    assert compare_versions("7", "7") == 0


def test_older_and_newer() -> None:
    assert compare_versions("1.2.3", "1.2.4") == -1
    assert compare_versions("2.0", "1.99.99") == 1
    assert compare_versions("0.9", "1.0") == -1


def test_numbers_not_text() -> None:
    assert compare_versions("1.10", "1.9") == 1
    assert compare_versions("1.9.0", "1.10") == -1
    assert compare_versions("1.02", "1.2") == 0


def test_missing_numbers_count_as_zero() -> None:
    assert compare_versions("1.2", "1.2.0") == 0
    assert compare_versions("1.2.0.0", "1.2") == 0
    assert compare_versions("1.2", "1.2.1") == -1
    assert compare_versions("3.0.0.1", "3") == 1


def test_leading_v_is_ignored() -> None:
    assert compare_versions("v2.0", "2") == 0
    assert compare_versions("v1.4", "v1.3.9") == 1
    assert compare_versions("1.0", "v1.0.1") == -1
