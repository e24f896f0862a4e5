from solution import snake_to_camel


def test_two_words() -> None:
    assert snake_to_camel("hello_world") == "helloWorld"


def test_several_words() -> None:
    assert snake_to_camel("get_user_id") == "getUserId"


def test_single_word() -> None:
    assert snake_to_camel("name") == "name"


def test_digits() -> None:
    assert snake_to_camel("version_2_beta") == "version2Beta"


def test_extra_underscores_dropped() -> None:
    assert snake_to_camel("_private_value") == "privateValue"
    assert snake_to_camel("a__b_") == "aB"


def test_empty() -> None:
    assert snake_to_camel("") == ""
