class ParkingLot:
    """A car park with a fixed number of spots that tracks cars by plate."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._parked: set[str] = set()

    def park(self, plate: str) -> bool:
        """Park the car and return True, or return False when the lot is full."""
        if plate in self._parked:
            raise ValueError(f"{plate} is already parked")
        if len(self._parked) >= self._capacity:
            return False
        self._parked.add(plate)
        return True

    def leave(self, plate: str) -> None:
        """Remove a parked car."""
        if plate not in self._parked:
            raise ValueError(f"{plate} is not parked")
        self._parked.remove(plate)

    def free_spots(self) -> int:
        """Return the number of free spots."""
        return self._capacity - len(self._parked)
