from solution import ticket_id


def test_hamburg_ticket() -> None:
    assert ticket_id("HAM", 2024, 20) == "HAM/2024/00020"


def test_bremen_ticket() -> None:
    assert ticket_id("BRE", 2024, 233) == "BRE/2024/00233"


def test_first_ticket_of_a_year() -> None:
    assert ticket_id("HAM", 2025, 1) == "HAM/2025/00001"


def test_large_number() -> None:
    assert ticket_id("BRE", 2023, 12345) == "BRE/2023/12345"


def test_same_as_existing_tickets() -> None:
    with open("data/tickets.csv", encoding="utf-8") as tickets:
        ids = [line.split(",")[0] for line in tickets.read().splitlines()[1:]]
    assert ticket_id("HAM", 2024, 17) == ids[0]
    assert ticket_id("BRE", 2024, 231) == ids[2]
