from solution import shelf_slug


def test_example_title() -> None:
    assert shelf_slug("The Name of the Rose") == "name-rose"


def test_german_articles_are_dropped() -> None:
    assert shelf_slug("Der Herr der Ringe") == "herr-ringe"


def test_at_most_four_words() -> None:
    assert shelf_slug("A Tale of Two Cities and Other Stories") == "tale-two-cities-other"


def test_accents_are_folded() -> None:
    assert shelf_slug("Les Misérables") == "les-miserables"


def test_long_german_title() -> None:
    assert shelf_slug("Die Leiden des jungen Werther") == "leiden-des-jungen-werther"


def test_short_words_other_than_stop_words_stay() -> None:
    assert shelf_slug("Into the Wild") == "into-wild"
