def count_unique_visitors(visitor_ids: list[str]) -> int:
    """How many different non-blank ids, ignoring case and surrounding whitespace."""
    return len({key for visitor in visitor_ids if (key := visitor.strip().lower())})
