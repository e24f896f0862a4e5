from solution import mask_digits


def test_default_keeps_last_four() -> None:
    assert mask_digits("card 1234-5678-9012") == "card ****-****-9012"
    assert mask_digits("123456") == "**3456"


def test_custom_keep() -> None:
    assert mask_digits("pin 12", 1) == "pin *2"
    assert mask_digits("a1b2c3d4", 2) == "a*b*c3d4"


def test_keep_zero_masks_all() -> None:
    assert mask_digits("tel: 555-0199", 0) == "tel: ***-****"


def test_few_digits_unchanged() -> None:
    assert mask_digits("room 42") == "room 42"
    assert mask_digits("1234") == "1234"


def test_no_digits() -> None:
    assert mask_digits("no numbers here") == "no numbers here"
    assert mask_digits("", 0) == ""
