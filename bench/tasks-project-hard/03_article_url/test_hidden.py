from datetime import date

from solution import article_url


def test_simple_title() -> None:
    assert article_url("Hello World", date(2024, 3, 5)) == "/journal/2024/03/hello_world.html"


def test_umlauts_are_spelled_out() -> None:
    assert (
        article_url("Über Straßen & Brücken!", date(2023, 11, 30))
        == "/journal/2023/11/ueber_strassen_bruecken.html"
    )


def test_runs_of_punctuation_collapse() -> None:
    assert article_url("  C++ -- tips & tricks  ", date(2022, 1, 9)) == (
        "/journal/2022/01/c_tips_tricks.html"
    )


def test_digits_are_kept() -> None:
    assert article_url("Top 10 Hütten 2025", date(2025, 7, 1)) == (
        "/journal/2025/07/top_10_huetten_2025.html"
    )


def test_long_title_is_cut() -> None:
    title = "Vom Rheinfall bis zum Bodensee: eine Woche Velo entlang des Rheins"
    assert article_url(title, date(2024, 8, 15)) == (
        "/journal/2024/08/vom_rheinfall_bis_zum_bodensee_eine_woch.html"
    )


def test_cut_does_not_leave_trailing_underscore() -> None:
    title = "Zwölf Seen und drei Pässe in 1 Tag: so geht es"
    assert article_url(title, date(2021, 5, 20)) == (
        "/journal/2021/05/zwoelf_seen_und_drei_paesse_in_1_tag_so.html"
    )
