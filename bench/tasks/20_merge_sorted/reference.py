def merge_sorted(first: list[int], second: list[int]) -> list[int]:
    """Merge two ascending lists into one ascending list."""
    result: list[int] = []
    i = j = 0
    while i < len(first) and j < len(second):
        if first[i] <= second[j]:
            result.append(first[i])
            i += 1
        else:
            result.append(second[j])
            j += 1
    result.extend(first[i:])
    result.extend(second[j:])
    return result
