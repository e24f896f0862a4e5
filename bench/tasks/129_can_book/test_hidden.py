from solution import can_book


def test_empty_room_within_hours() -> None:
    assert can_book([], 480, 1200, 30) is True
    assert can_book([], 600, 660, 0) is True


def test_outside_opening_hours() -> None:
    assert can_book([], 470, 540, 0) is False
    assert can_book([], 1140, 1201, 0) is False


def test_start_must_be_before_end() -> None:
    assert can_book([], 600, 600, 0) is False
    assert can_book([], 700, 650, 0) is False


def test_buffer_after_an_existing_booking() -> None:
    assert can_book([(600, 660)], 680, 700, 20) is True
    assert can_book([(600, 660)], 679, 700, 20) is False


def test_buffer_before_an_existing_booking() -> None:
    assert can_book([(600, 660)], 500, 570, 30) is True
    assert can_book([(600, 660)], 500, 571, 30) is False


def test_zero_buffer_allows_touching() -> None:
    assert can_book([(600, 660)], 660, 720, 0) is True
    assert can_book([(600, 660)], 540, 600, 0) is True
    assert can_book([(600, 660)], 620, 640, 0) is False


def test_between_several_bookings() -> None:
    bookings = [(900, 960), (500, 560), (700, 800)]
    assert can_book(bookings, 575, 685, 15) is True
    assert can_book(bookings, 575, 690, 15) is False
    assert can_book(bookings, 960, 1000, 5) is False
    assert bookings == [(900, 960), (500, 560), (700, 800)]
