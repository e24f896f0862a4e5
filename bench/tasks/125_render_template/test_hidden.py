from solution import render_template


def test_placeholders_are_filled() -> None:
    assert render_template("{a}-{b}", {"a": "x", "b": "y"}) == "x-y"
    assert render_template("{user_1} owes {amount}", {"user_1": "Kim", "amount": 2.5}) == (
        "Kim owes 2.5"
    )


def test_repeated_placeholder() -> None:
    assert render_template("{w} {w} {w}", {"w": "go"}) == "go go go"


def test_missing_names_are_kept() -> None:
    assert render_template("Dear {title} {last}", {"last": "Ng"}) == "Dear {title} Ng"
    assert render_template("{x}", {}) == "{x}"


def test_doubled_braces() -> None:
    assert render_template("{{}}", {}) == "{}"
    assert render_template("{{{n}}}", {"n": 5}) == "{5}"
    assert render_template("set {{a, b}}", {"a": 1}) == "set {a, b}"


def test_lone_braces_and_bad_names_are_copied() -> None:
    assert render_template("{ a }", {"a": 1}) == "{ a }"
    assert render_template("x } y {", {}) == "x } y {"
    assert render_template("{a-b}", {"a-b": 1}) == "{a-b}"


def test_values_are_not_read_again() -> None:
    assert render_template("{a}", {"a": "{b}", "b": "no"}) == "{b}"
    assert render_template("{a}", {"a": "{{"}) == "{{"


def test_no_placeholders() -> None:
    assert render_template("", {"a": 1}) == ""
    assert render_template("plain text", {}) == "plain text"
