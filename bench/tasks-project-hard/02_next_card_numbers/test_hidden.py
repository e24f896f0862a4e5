from solution import next_card_numbers


def test_first_cards_of_an_empty_register() -> None:
    assert next_card_numbers([], 3) == ["LBM-000001-K", "LBM-000002-U", "LBM-000003-D"]


def test_continues_after_highest_serial() -> None:
    existing = ["LBM-004217-H", "LBM-000042-A"]
    assert next_card_numbers(existing, 3) == ["LBM-004218-R", "LBM-004219-A", "LBM-004220-A"]


def test_existing_numbers_out_of_order() -> None:
    existing = ["LBM-000099-E", "LBM-000001-K", "LBM-000057-E"]
    assert next_card_numbers(existing, 1) == ["LBM-000100-H"]


def test_crossing_into_four_digits() -> None:
    assert next_card_numbers(["LBM-000998-E", "LBM-000042-A"], 3) == [
        "LBM-000999-N",
        "LBM-001000-F",
        "LBM-001001-P",
    ]


def test_large_serial() -> None:
    assert next_card_numbers(["LBM-249999-H"], 2) == ["LBM-250000-A", "LBM-250001-K"]


def test_zero_count() -> None:
    assert next_card_numbers(["LBM-000001-K"], 0) == []
