VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman_to_int(roman: str) -> int:
    """Return the value of an uppercase Roman numeral."""
    total = 0
    for index, char in enumerate(roman):
        value = VALUES[char]
        if index + 1 < len(roman) and VALUES[roman[index + 1]] > value:
            total -= value
        else:
            total += value
    return total
