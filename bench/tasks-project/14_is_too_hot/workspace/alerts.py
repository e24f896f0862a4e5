"""Alert messages for the facility desk."""


def alert_text(sensor_id: str, room: str, celsius: float) -> str:
    """Return the alert message for a reading out of range."""
    return f"[{sensor_id}] {room}: {celsius:.1f} C is out of range"


def is_stale(minutes_since_last: int, limit_minutes: int = 15) -> bool:
    """Return True if a sensor has not reported for too long."""
    return minutes_since_last > limit_minutes
