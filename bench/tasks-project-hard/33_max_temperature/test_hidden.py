import math
import os
import tempfile

from solution import max_temperature

LOG = "data/sensors-20240301.log"


def write_log(text: str) -> str:
    """Write text to a temporary log file and return its path."""
    handle, path = tempfile.mkstemp(suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as log:
        log.write(text)
    return path


def test_warmest_reading_of_the_day() -> None:
    result = max_temperature(LOG, "th-04")
    assert isinstance(result, float)
    assert math.isclose(result, 21.5)


def test_cold_device() -> None:
    assert math.isclose(max_temperature(LOG, "th-01"), 6.4)


def test_error_lines_do_not_count() -> None:
    assert max_temperature(LOG, "th-02") is None


def test_unknown_device() -> None:
    assert max_temperature(LOG, "th-09") is None


def test_only_negative_readings() -> None:
    path = write_log(
        "S 20240302T000000Z gw start v2.4.1\n"
        "R 20240302T000510Z th-03 tmp=-45 rh=95 bat=2900\n"
        "R 20240302T060510Z th-03 tmp=-8 rh=97 bat=2900\n"
        "R 20240302T060512Z th-01 tmp=30 rh=80 bat=2990\n"
        "E 20240302T070000Z th-03 tmp=120 radio noise\n"
    )
    try:
        assert math.isclose(max_temperature(path, "th-03"), -0.8)
    finally:
        os.remove(path)
