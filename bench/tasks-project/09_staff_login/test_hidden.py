from solution import staff_login


def test_example_name() -> None:
    assert staff_login("Anna", "Berger") == "bergea"


def test_umlaut_in_last_name() -> None:
    assert staff_login("Lea", "Müller") == "muelll"


def test_sharp_s() -> None:
    assert staff_login("Jürg", "Weiß") == "weissj"


def test_double_name() -> None:
    assert staff_login("Marc", "von Känel") == "vonkam"


def test_accent_and_umlaut() -> None:
    assert staff_login("Émile", "Dürst") == "duerse"


def test_short_last_name() -> None:
    assert staff_login("Tim", "Ott") == "ottt"
