from collections import deque


class RateLimiter:
    """A sliding-window limit on events with integer timestamps."""

    def __init__(self, limit: int, window: int) -> None:
        if limit < 1 or window < 1:
            raise ValueError("limit and window must be at least 1")
        self._limit = limit
        self._window = window
        self._times: deque[int] = deque()

    def _forget_before(self, timestamp: int) -> None:
        """Drop events that are outside the window ending at timestamp."""
        while self._times and self._times[0] <= timestamp - self._window:
            self._times.popleft()

    def remaining(self, timestamp: int) -> int:
        """Return how many more events would be allowed at timestamp."""
        self._forget_before(timestamp)
        return self._limit - len(self._times)

    def allow(self, timestamp: int) -> bool:
        """Record and allow an event at timestamp if the window has room."""
        if self.remaining(timestamp) <= 0:
            return False
        self._times.append(timestamp)
        return True
