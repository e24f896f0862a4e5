from solution import merge_contacts


def entry(name: str, email: str, phone: str = "") -> dict[str, str]:
    return {"name": name, "email": email, "phone": phone}


def test_distinct_people_are_kept_in_order() -> None:
    contacts = [entry("Zed", "z@a.com", "9"), entry("Amy", "amy@a.com")]
    assert merge_contacts(contacts) == [entry("Zed", "z@a.com", "9"), entry("Amy", "amy@a.com")]


def test_email_is_normalised() -> None:
    assert merge_contacts([entry("Lee", "  Lee@Mail.COM ")]) == [entry("Lee", "lee@mail.com")]


def test_first_name_wins() -> None:
    contacts = [entry("Robert", "rob@x.net"), entry("Bob", "ROB@x.net", "77")]
    assert merge_contacts(contacts) == [entry("Robert", "rob@x.net", "77")]


def test_first_non_empty_phone_wins() -> None:
    contacts = [
        entry("Kay", "k@x.net"),
        entry("Kay", "k@x.net", "111"),
        entry("K", " K@X.NET", "222"),
    ]
    assert merge_contacts(contacts) == [entry("Kay", "k@x.net", "111")]
    assert merge_contacts([entry("Al", "a@b.c", "5"), entry("Al", "a@b.c", "6")]) == [
        entry("Al", "a@b.c", "5")
    ]


def test_people_keep_the_order_of_first_appearance() -> None:
    contacts = [entry("A", "a@x"), entry("B", "b@x"), entry("A2", "A@x", "3"), entry("C", "c@x")]
    assert merge_contacts(contacts) == [
        entry("A", "a@x", "3"),
        entry("B", "b@x"),
        entry("C", "c@x"),
    ]


def test_inputs_are_not_changed() -> None:
    first, second = entry("Jo", " JO@x.org"), entry("Jo", "jo@x.org", "42")
    merge_contacts([first, second])
    assert first == entry("Jo", " JO@x.org")
    assert second == entry("Jo", "jo@x.org", "42")


def test_no_contacts() -> None:
    assert merge_contacts([]) == []
