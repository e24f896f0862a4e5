TRANSITIONS = {
    "open": ("closed", "open"),
    "close": ("open", "closed"),
    "lock": ("closed", "locked"),
    "unlock": ("locked", "closed"),
}


def door_state(events: list[str]) -> str:
    """Return the door's state after the events, starting closed."""
    state = "closed"
    for event in events:
        if event not in TRANSITIONS:
            raise ValueError(f"unknown event: {event!r}")
        source, target = TRANSITIONS[event]
        if state == source:
            state = target
    return state
