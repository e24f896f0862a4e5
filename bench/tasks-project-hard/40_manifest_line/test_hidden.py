from collections.abc import Callable

from solution import manifest_line


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_domestic_parcel() -> None:
    assert manifest_line(4712, "DE", 480) == "SHP^0004712^Z1^DE^00.480"


def test_zone_from_table() -> None:
    assert manifest_line(4715, "FR", 12005) == "SHP^0004715^Z3^FR^12.005"
    assert manifest_line(5001, "SE", 2000) == "SHP^0005001^Z4^SE^02.000"
    assert manifest_line(5002, "NO", 31500) == "SHP^0005002^Z5^NO^31.500"


def test_small_weight_and_long_id() -> None:
    assert manifest_line(1234567, "NL", 5) == "SHP^1234567^Z2^NL^00.005"


def test_same_as_existing_manifest() -> None:
    with open("manifests/2024-05-02.txt", encoding="utf-8") as manifest:
        lines = manifest.read().splitlines()
    assert manifest_line(4711, "AT", 1250) == lines[0]
    assert manifest_line(4720, "CH", 7090) == lines[-1]


def test_unknown_country() -> None:
    assert raises(ValueError, manifest_line, 4800, "US", 1000)
    assert raises(ValueError, manifest_line, 4801, "LU", 1000)
