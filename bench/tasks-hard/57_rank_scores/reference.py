def rank_scores(scores: list[int]) -> list[int]:
    """Return each score's competition rank (1 for the highest)."""
    ordered = sorted(scores, reverse=True)
    first_place: dict[int, int] = {}
    for index, score in enumerate(ordered):
        first_place.setdefault(score, index + 1)
    return [first_place[score] for score in scores]
