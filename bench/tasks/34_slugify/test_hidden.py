from solution import slugify


def test_simple_title() -> None:
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("python") == "python"


def test_runs_collapse_to_one_dash() -> None:
    assert slugify("a  --  b") == "a-b"
    assert slugify("Tips & Tricks: Part 2") == "tips-tricks-part-2"


def test_no_dashes_at_the_ends() -> None:
    assert slugify("  ...Leading and trailing!!  ") == "leading-and-trailing"


def test_underscores_and_accents_are_separators() -> None:
    assert slugify("snake_case_name") == "snake-case-name"
    assert slugify("Café au lait") == "caf-au-lait"


def test_digits_are_kept() -> None:
    assert slugify("Top 10 of 2024") == "top-10-of-2024"


def test_nothing_left_gives_empty_string() -> None:
    assert slugify("") == ""
    assert slugify("?!  --") == ""
