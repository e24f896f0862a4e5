from solution import pallets_needed


def test_example_order() -> None:
    assert pallets_needed(100) == 3


def test_one_carton() -> None:
    assert pallets_needed(1) == 1


def test_exactly_one_full_pallet() -> None:
    assert pallets_needed(45) == 1


def test_one_carton_more_than_a_pallet() -> None:
    assert pallets_needed(46) == 2


def test_large_order() -> None:
    assert pallets_needed(900) == 20
