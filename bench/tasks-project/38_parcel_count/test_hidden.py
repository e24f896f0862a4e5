import os
import tempfile

from solution import parcel_count


def test_example_day() -> None:
    assert parcel_count("manifests/2024-05-02.txt", "DE") == 3


def test_other_countries_same_day() -> None:
    assert parcel_count("manifests/2024-05-02.txt", "AT") == 1
    assert parcel_count("manifests/2024-05-02.txt", "FR") == 1


def test_next_day() -> None:
    assert parcel_count("manifests/2024-05-03.txt", "NL") == 2
    assert parcel_count("manifests/2024-05-03.txt", "AT") == 1
    assert parcel_count("manifests/2024-05-03.txt", "CH") == 1


def test_other_manifest() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "2024-05-06.txt")
        with open(path, "w", encoding="utf-8") as manifest:
            manifest.write("HDR^HUB-HH^20240506^acct 7730-DE\n")
            manifest.write("SHP^0004801^PL^900\nSHP^0004802^PL^450\nRET^0004790^PL^300\n")
            manifest.write("SHP^0004803^DE^1000\nEND^4\n")
        assert parcel_count(path, "PL") == 2
        assert parcel_count(path, "DE") == 1
