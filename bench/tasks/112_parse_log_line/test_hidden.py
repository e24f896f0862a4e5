from solution import parse_log_line


def test_a_full_line() -> None:
    assert parse_log_line("2023-11-30 08:00:59 [ERROR] billing: card declined") == {
        "date": "2023-11-30",
        "time": "08:00:59",
        "level": "ERROR",
        "component": "billing",
        "message": "card declined",
    }


def test_message_is_stripped_and_may_hold_colons() -> None:
    parsed = parse_log_line("2024-01-02 03:04:05 [DEBUG] net.http:   GET /a: 200   ")
    assert parsed is not None
    assert parsed["component"] == "net.http"
    assert parsed["message"] == "GET /a: 200"


def test_empty_message() -> None:
    parsed = parse_log_line("2024-01-02 03:04:05 [INFO] worker_2:")
    assert parsed is not None
    assert parsed["message"] == ""
    assert parsed["component"] == "worker_2"


def test_trailing_newline_is_ignored() -> None:
    parsed = parse_log_line("2024-01-02 03:04:05 [WARN] disk: 91% full\n")
    assert parsed is not None
    assert parsed["message"] == "91% full"
    assert parsed["level"] == "WARN"


def test_unknown_or_lower_case_level() -> None:
    assert parse_log_line("2024-01-02 03:04:05 [TRACE] app: x") is None
    assert parse_log_line("2024-01-02 03:04:05 [info] app: x") is None


def test_malformed_lines() -> None:
    assert parse_log_line("") is None
    assert parse_log_line("2024-1-02 03:04:05 [INFO] app: x") is None
    assert parse_log_line("2024-01-02 03:04:05 INFO app: x") is None
    assert parse_log_line("2024-01-02 03:04:05 [INFO] my app: x") is None
    assert parse_log_line("2024-01-02 03:04:05 [INFO] app x") is None
