from solution import parse_reading


def test_simple_line() -> None:
    assert parse_reading("MSR;0800;21.4;house-1") == ("house-1", 21.4)


def test_trailing_newline() -> None:
    assert parse_reading("MSR;0930;18.25;house-3\n") == ("house-3", 18.25)


def test_negative_temperature() -> None:
    assert parse_reading("MSR;2345;-3.0;cold-store") == ("cold-store", -3.0)


def test_types() -> None:
    sensor, celsius = parse_reading("MSR;1200;30;house-2")
    assert sensor == "house-2"
    assert isinstance(celsius, float)
    assert celsius == 30.0


def test_lines_of_the_log() -> None:
    with open("data/gw07_2024-03-12.log", encoding="utf-8") as log:
        lines = [line for line in log if line.startswith("MSR")]
    readings = [parse_reading(line) for line in lines]
    assert readings[0] == ("house-1", 21.4)
    assert readings[3] == ("cold-store", -1.5)
    assert [sensor for sensor, _ in readings].count("house-1") == 2
