from solution import article_line


def test_tea() -> None:
    assert article_line("TEA-01", 3, 450) == "ART|TEA-01|450|3"


def test_single_piece() -> None:
    assert article_line("MUG-RED", 1, 1290) == "ART|MUG-RED|1290|1"


def test_cheap_article() -> None:
    assert article_line("FILTER-S", 12, 85) == "ART|FILTER-S|85|12"


def test_no_newline() -> None:
    assert not article_line("CHOC-70", 4, 239).endswith("\n")


def test_same_as_existing_receipts() -> None:
    with open("receipts/2024-05-03_0012.txt", encoding="utf-8") as receipt:
        lines = receipt.read().splitlines()
    assert article_line("MUG-BLUE", 1, 1290) == lines[2]
    assert article_line("CHOC-70", 4, 239) == lines[3]
    with open("receipts/2024-05-03_0013.txt", encoding="utf-8") as receipt:
        lines = receipt.read().splitlines()
    assert article_line("TEA-07", 2, 520) == lines[1]
