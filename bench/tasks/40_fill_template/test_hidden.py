from solution import fill_template


def test_simple_placeholders() -> None:
    assert fill_template("Hello, {{name}}!", {"name": "Ada"}) == "Hello, Ada!"
    assert fill_template("{{a}}-{{b}}", {"a": "x", "b": "y"}) == "x-y"


def test_spaces_inside_braces() -> None:
    assert fill_template("Hi {{ user_1 }} and {{user_1}}", {"user_1": "Bo"}) == "Hi Bo and Bo"


def test_values_are_converted_with_str() -> None:
    assert fill_template("{{n}} items at {{price}}", {"n": 3, "price": 2.5}) == "3 items at 2.5"
    assert fill_template("[{{flag}}]", {"flag": None}) == "[None]"


def test_unknown_names_are_left_as_written() -> None:
    template = "Dear {{ who }}, see {{what}}."
    assert fill_template(template, {"what": "page 2"}) == "Dear {{ who }}, see page 2."


def test_single_braces_are_kept() -> None:
    assert fill_template("{x} {{x}} {", {"x": 1}) == "{x} 1 {"


def test_no_placeholders() -> None:
    assert fill_template("plain text", {"a": 1}) == "plain text"
    assert fill_template("", {}) == ""
