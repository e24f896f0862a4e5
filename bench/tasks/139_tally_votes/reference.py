def tally_votes(ballots: list[str], candidates: list[str]) -> tuple[str | None, int]:
    """The candidate with the most votes (first listed on a tie, None without votes), spoiled."""
    by_key = {name.lower(): name for name in candidates}
    votes = dict.fromkeys(candidates, 0)
    spoiled = 0
    for ballot in ballots:
        name = by_key.get(ballot.strip().lower())
        if name is None:
            spoiled += 1
        else:
            votes[name] += 1
    best = max(votes.values(), default=0)
    if best == 0:
        return (None, spoiled)
    winner = next(name for name in candidates if votes[name] == best)
    return (winner, spoiled)
