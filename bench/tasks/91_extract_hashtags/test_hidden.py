from solution import extract_hashtags


def test_examples() -> None:
    assert extract_hashtags("Loving #Python and #python3!") == ["#python", "#python3"]
    assert extract_hashtags("#Fun, #fun and # nothing") == ["#fun"]


def test_order_of_first_appearance() -> None:
    assert extract_hashtags("#b #a #c #a") == ["#b", "#a", "#c"]


def test_underscores_and_digits_belong_to_the_tag() -> None:
    assert extract_hashtags("see #new_year_2025.") == ["#new_year_2025"]


def test_tag_ends_at_other_characters() -> None:
    assert extract_hashtags("(#one)#two-three") == ["#one", "#two"]


def test_lone_hash_is_not_a_tag() -> None:
    assert extract_hashtags("# #! ##") == []


def test_no_hashtags() -> None:
    assert extract_hashtags("") == []
    assert extract_hashtags("plain text") == []
