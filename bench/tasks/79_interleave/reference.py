def interleave(first: list, second: list) -> list:
    """Alternate the elements of first and second, then add what is left."""
    result = []
    for index in range(max(len(first), len(second))):
        if index < len(first):
            result.append(first[index])
        if index < len(second):
            result.append(second[index])
    return result
