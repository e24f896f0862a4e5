MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def day_of_year(date: int) -> int:
    """Return the 1-based day of the year of a YYYYMMDD integer date."""
    year, rest = divmod(date, 10000)
    month, day = divmod(rest, 100)
    if not 1 <= month <= 12:
        raise ValueError(f"no month {month}")
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = list(MONTH_DAYS)
    if leap:
        days[1] = 29
    if not 1 <= day <= days[month - 1]:
        raise ValueError(f"no day {day} in month {month}")
    return sum(days[: month - 1]) + day
