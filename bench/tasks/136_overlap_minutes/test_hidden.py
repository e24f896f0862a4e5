from solution import overlap_minutes


def test_partial_overlap() -> None:
    assert overlap_minutes(600, 660, 630, 700) == 30
    assert overlap_minutes(630, 700, 600, 660) == 30


def test_one_inside_the_other() -> None:
    assert overlap_minutes(480, 720, 500, 515) == 15
    assert overlap_minutes(500, 515, 480, 720) == 15


def test_same_meeting() -> None:
    assert overlap_minutes(540, 600, 540, 600) == 60


def test_touching_meetings_do_not_overlap() -> None:
    assert overlap_minutes(540, 600, 600, 630) == 0
    assert overlap_minutes(600, 630, 540, 600) == 0


def test_apart() -> None:
    assert overlap_minutes(700, 760, 540, 600) == 0
    assert overlap_minutes(0, 10, 20, 30) == 0
