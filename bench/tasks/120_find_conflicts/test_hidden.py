from solution import find_conflicts


def test_one_overlap() -> None:
    meetings = [("plan", "14:00", "15:00"), ("call", "14:30", "14:45")]
    assert find_conflicts(meetings) == [("call", "plan")]


def test_touching_meetings_do_not_conflict() -> None:
    meetings = [("a", "9:00", "10:00"), ("b", "10:00", "11:00"), ("c", "8:00", "9:00")]
    assert find_conflicts(meetings) == []


def test_times_compare_as_times_not_text() -> None:
    meetings = [("early", "9:30", "10:30"), ("late", "10:00", "11:00")]
    assert find_conflicts(meetings) == [("early", "late")]
    assert find_conflicts([("p", "9:50", "9:55"), ("q", "10:00", "10:05")]) == []


def test_leading_zero_times() -> None:
    meetings = [("one", "09:05", "09:30"), ("two", "9:29", "9:40")]
    assert find_conflicts(meetings) == [("one", "two")]


def test_many_pairs_are_sorted() -> None:
    meetings = [
        ("d", "8:00", "18:00"),
        ("b", "12:00", "13:00"),
        ("a", "12:30", "12:45"),
        ("c", "17:00", "19:00"),
    ]
    assert find_conflicts(meetings) == [("a", "b"), ("a", "d"), ("b", "d"), ("c", "d")]


def test_fewer_than_two_meetings() -> None:
    assert find_conflicts([]) == []
    assert find_conflicts([("solo", "10:00", "11:00")]) == []
