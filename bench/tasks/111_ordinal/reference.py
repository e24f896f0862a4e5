def ordinal(n: int) -> str:
    """n with its English ordinal suffix: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
