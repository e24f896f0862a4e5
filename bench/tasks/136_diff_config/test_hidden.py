from solution import diff_config


def test_added_and_removed() -> None:
    assert diff_config({}, {"a": "1"}) == ["+ a=1"]
    assert diff_config({"a": "1"}, {}) == ["- a=1"]


def test_changed() -> None:
    assert diff_config({"mode": "dev"}, {"mode": "prod"}) == ["~ mode: dev -> prod"]


def test_unchanged_settings_are_left_out() -> None:
    config = {"x": "1", "y": "2"}
    assert diff_config(config, dict(config)) == []


def test_lines_are_sorted_by_name() -> None:
    old = {"b": "1", "d": "4", "a": "0"}
    new = {"c": "3", "a": "9", "d": "4"}
    assert diff_config(old, new) == ["~ a: 0 -> 9", "- b=1", "+ c=3"]


def test_case_and_spaces_matter() -> None:
    assert diff_config({"Key": "v"}, {"key": "v"}) == ["- Key=v", "+ key=v"]
    assert diff_config({"k": "v"}, {"k": "v "}) == ["~ k: v -> v "]


def test_empty_values() -> None:
    assert diff_config({"note": ""}, {"note": "hi", "tag": ""}) == ["~ note:  -> hi", "+ tag="]
