"""Which laptop model each team gets."""

LAPTOPS = {"accounting": "ThinkPad T14", "audit": "ThinkPad X1", "front office": "EliteBook 840"}
DEFAULT_LAPTOP = "ThinkPad T14"


def laptop_for(team: str) -> str:
    """Return the laptop model handed to a new member of a team."""
    return LAPTOPS.get(team.lower(), DEFAULT_LAPTOP)
