from collections.abc import Callable

from solution import ParkingLot


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_starts_empty() -> None:
    assert ParkingLot(3).free_spots() == 3


def test_parking_takes_a_spot() -> None:
    lot = ParkingLot(3)
    assert lot.park("A") is True
    assert lot.park("B") is True
    assert lot.free_spots() == 1


def test_full_lot_refuses_cars() -> None:
    lot = ParkingLot(2)
    assert lot.park("A") is True
    assert lot.park("B") is True
    assert lot.park("C") is False
    assert lot.free_spots() == 0
    assert raises(ValueError, lot.leave, "C")


def test_leaving_frees_the_spot() -> None:
    lot = ParkingLot(1)
    lot.park("A")
    lot.leave("A")
    assert lot.free_spots() == 1
    assert lot.park("B") is True
    assert lot.free_spots() == 0


def test_parking_twice_raises() -> None:
    lot = ParkingLot(5)
    lot.park("A")
    assert raises(ValueError, lot.park, "A")
    assert lot.free_spots() == 4


def test_leaving_unknown_plate_raises() -> None:
    lot = ParkingLot(2)
    lot.park("A")
    assert raises(ValueError, lot.leave, "B")
    lot.leave("A")
    assert raises(ValueError, lot.leave, "A")
    assert lot.free_spots() == 2
