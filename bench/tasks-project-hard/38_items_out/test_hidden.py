import os
import tempfile

from solution import items_out


def write_log(text: str) -> str:
    """Write text to a temporary log file and return its path."""
    handle, path = tempfile.mkstemp(suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as log:
        log.write(text)
    return path


def test_day_log() -> None:
    assert items_out("logs/circulation-2024-03-02.log") == ["31200045", "31200077", "31200101"]


def test_return_after_lending() -> None:
    path = write_log(
        "2024-03-04 09:00:00 CKO bc=40000001 mbr=M-001 due=20240325\n"
        "2024-03-04 09:30:00 CKI bc=40000001 mbr=M-001\n"
    )
    try:
        assert items_out(path) == []
    finally:
        os.remove(path)


def test_renewal_and_hold_do_not_lend() -> None:
    path = write_log(
        "2024-03-04 09:00:00 RNW bc=40000002 mbr=M-001 due=20240401\n"
        "\n"
        "2024-03-04 09:05:00 HLD bc=40000003 mbr=M-002\n"
        "2024-03-04 09:10:00 CKO bc=40000004 mbr=M-002 due=20240325\n"
        "2024-03-04 09:20:00 RNW bc=40000004 mbr=M-002 due=20240408\n"
    )
    try:
        assert items_out(path) == ["40000004"]
    finally:
        os.remove(path)


def test_sorted_result() -> None:
    path = write_log(
        "2024-03-05 10:00:00 CKO bc=40000090 mbr=M-009 due=20240326\n"
        "2024-03-05 10:01:00 CKO bc=40000010 mbr=M-009 due=20240326\n"
        "2024-03-05 10:02:00 CKO bc=40000050 mbr=M-009 due=20240326\n"
    )
    try:
        assert items_out(path) == ["40000010", "40000050", "40000090"]
    finally:
        os.remove(path)
