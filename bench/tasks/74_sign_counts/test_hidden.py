from solution import sign_counts


def test_mixed() -> None:
    assert sign_counts([-2, 0, 3, 5, -1]) == (2, 1, 2)


def test_all_positive() -> None:
    assert sign_counts([1, 2, 3]) == (0, 0, 3)


def test_all_negative_and_zeros() -> None:
    assert sign_counts([-1, -7]) == (2, 0, 0)
    assert sign_counts([0, 0, 0]) == (0, 3, 0)


def test_floats() -> None:
    assert sign_counts([-0.5, 0.0, 0.25, 2.5]) == (1, 1, 2)


def test_empty() -> None:
    assert sign_counts([]) == (0, 0, 0)
