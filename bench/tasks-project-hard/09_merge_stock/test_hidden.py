from solution import merge_stock


def test_one_article_written_three_ways() -> None:
    assert merge_stock([("kb 123", 2), ("KB-00123", 3), ("kb123", 1)]) == {"KB.00123": 6}


def test_keys_in_first_seen_order() -> None:
    result = merge_stock([("st-7", 1), ("ab 42", 5), ("ST 0007", 4)])
    assert list(result) == ["ST.00007", "AB.00042"]
    assert result == {"ST.00007": 5, "AB.00042": 5}


def test_three_letter_groups_and_long_numbers() -> None:
    counts = [("pkg/12345", 10), ("PKG 12345", 2), ("hw_9", 3)]
    assert merge_stock(counts) == {"PKG.12345": 12, "HW.00009": 3}


def test_already_canonical() -> None:
    assert merge_stock([("KB.00123", 7)]) == {"KB.00123": 7}


def test_zero_quantities_still_listed() -> None:
    assert merge_stock([("ab1", 0), ("AB-0001", 0)]) == {"AB.00001": 0}


def test_empty() -> None:
    assert merge_stock([]) == {}
