"""Alert rules for the grower on duty."""

import tomllib

SETTINGS_FILE = "greenhouse.toml"


def load_limits(path: str = SETTINGS_FILE) -> dict[str, float]:
    """Return the alert limits (degrees Celsius) from the settings file."""
    with open(path, "rb") as fh:
        return dict(tomllib.load(fh)["limits"])


def alert_for(celsius: float, limits: dict[str, float]) -> str | None:
    """Return the alert text for a temperature, or None when it is within the limits."""
    if celsius <= limits["frost_warning"]:
        return f"Frost warning: {celsius:.1f} °C"
    if celsius >= limits["too_hot"]:
        return f"Too hot: {celsius:.1f} °C"
    return None
