from solution import overdue_titles

DB = "library.db"


def test_several_overdue() -> None:
    assert overdue_titles(DB, "2024-02-10") == [
        "Birds of the Estuary",
        "Copper and Glass",
        "The Quiet Engineer",
        "Winter Orchard",
    ]


def test_returned_late_is_not_overdue() -> None:
    assert overdue_titles(DB, "2024-02-01") == ["Copper and Glass", "Winter Orchard"]


def test_due_today_is_not_overdue() -> None:
    assert "Ledger of Clouds" not in overdue_titles(DB, "2024-02-11")
    assert "Ledger of Clouds" in overdue_titles(DB, "2024-02-12")


def test_nothing_overdue() -> None:
    assert overdue_titles(DB, "2024-01-20") == []


def test_everything_out_is_overdue_later() -> None:
    assert overdue_titles(DB, "2024-03-01") == [
        "Birds of the Estuary",
        "Copper and Glass",
        "Harbor Lights",
        "Ledger of Clouds",
        "The Quiet Engineer",
        "The Salt Road",
        "Winter Orchard",
    ]
