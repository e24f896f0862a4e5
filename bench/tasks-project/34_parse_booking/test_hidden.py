from solution import parse_booking


def test_first_booking() -> None:
    assert parse_booking("BKG;rm=12;arr=20240501;nts=3;st=CNF;gst=Meyer") == {
        "room": "12",
        "nights": 3,
    }


def test_room_id_keeps_leading_zero() -> None:
    assert parse_booking("BKG;rm=04;arr=20240502;nts=1;st=PRV;gst=Okafor") == {
        "room": "04",
        "nights": 1,
    }


def test_long_stay_with_newline() -> None:
    assert parse_booking("BKG;rm=03;arr=20240517;nts=14;st=CNF;gst=Rossi\n") == {
        "room": "03",
        "nights": 14,
    }


def test_other_values() -> None:
    result = parse_booking("BKG;rm=09;arr=20241230;nts=6;st=CNF;gst=Nguyen")
    assert result == {"room": "09", "nights": 6}
    assert isinstance(result["nights"], int)


def test_whole_export() -> None:
    with open("exports/bookings_2024-05.txt", encoding="utf-8") as export:
        bookings = [parse_booking(line) for line in export]
    assert sum(booking["nights"] for booking in bookings) == 25
    assert [booking["room"] for booking in bookings] == ["12", "04", "07", "12", "03"]
