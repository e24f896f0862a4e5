def average_rating(stars: list[int]) -> float:
    """The mean of the non-zero ratings, rounded to 1 decimal; 0.0 for none."""
    rated = [star for star in stars if star != 0]
    if not rated:
        return 0.0
    return round(sum(rated) / len(rated), 1)
