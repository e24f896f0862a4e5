from solution import binary_search


def test_finds_middle_and_ends() -> None:
    items = [1, 3, 5, 7, 9, 11]
    assert binary_search(items, 7) == 3
    assert binary_search(items, 1) == 0
    assert binary_search(items, 11) == 5


def test_every_position() -> None:
    items = list(range(0, 200, 2))
    assert all(binary_search(items, value) == index for index, value in enumerate(items))


def test_missing_values() -> None:
    items = [1, 3, 5, 7]
    assert binary_search(items, 4) == -1
    assert binary_search(items, 0) == -1
    assert binary_search(items, 8) == -1


def test_negative_numbers() -> None:
    assert binary_search([-9, -4, 0, 2], -4) == 1


def test_empty_and_single() -> None:
    assert binary_search([], 3) == -1
    assert binary_search([3], 3) == 0
    assert binary_search([3], 2) == -1
