import os
import tempfile

from solution import count_loans


def test_march_log() -> None:
    assert count_loans("logs/circ_2024-03.log") == 5


def test_april_log() -> None:
    assert count_loans("logs/circ_2024-04.log") == 2


def test_only_renewals_and_returns() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "circ.log")
        with open(path, "w", encoding="utf-8") as log:
            log.write("RNW|20240501|31000123|P-0088\nCKI|20240502|31000123|P-0088\n")
        assert count_loans(path) == 0


def test_many_loans() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "circ.log")
        with open(path, "w", encoding="utf-8") as log:
            log.write("# branch Altstadt, circulation 2024-06\n")
            for number in range(7):
                log.write(f"CKO|202406{number + 1:02d}|3100{number:04d}|P-0001\n")
            log.write("HLD|20240610|31000001|P-0002\n")
        assert count_loans(path) == 7
