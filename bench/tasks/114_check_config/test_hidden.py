from solution import check_config

GOOD = {"name": "web", "port": 443, "workers": 8, "mode": "staging"}


def test_valid_records() -> None:
    assert check_config(GOOD) == []
    assert check_config({**GOOD, "debug": True}) == []
    assert check_config({**GOOD, "mode": "prod", "debug": False}) == []


def test_missing_keys_in_order() -> None:
    assert check_config({}) == [
        "missing: name",
        "missing: port",
        "missing: workers",
        "missing: mode",
    ]
    assert check_config({"mode": "dev", "name": "x"}) == ["missing: port", "missing: workers"]


def test_port_bounds_and_types() -> None:
    assert check_config({**GOOD, "port": 1}) == []
    assert check_config({**GOOD, "port": 65535}) == []
    assert check_config({**GOOD, "port": 0}) == ["invalid: port"]
    assert check_config({**GOOD, "port": "80"}) == ["invalid: port"]
    assert check_config({**GOOD, "port": True}) == ["invalid: port"]


def test_workers_and_mode() -> None:
    assert check_config({**GOOD, "workers": 0}) == ["invalid: workers"]
    assert check_config({**GOOD, "workers": 2.0}) == ["invalid: workers"]
    assert check_config({**GOOD, "mode": "Prod"}) == ["invalid: mode"]


def test_debug_rules() -> None:
    assert check_config({**GOOD, "debug": "yes"}) == ["invalid: debug"]
    assert check_config({**GOOD, "mode": "prod", "debug": True}) == ["invalid: debug"]


def test_unknown_keys_are_sorted_and_last() -> None:
    record = {"zone": "eu", "name": 5, "alpha": 1, "port": 22, "workers": 1, "mode": "dev"}
    assert check_config(record) == ["invalid: name", "unknown: alpha", "unknown: zone"]
