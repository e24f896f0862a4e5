def common_elements(first: list, second: list) -> list:
    """Return the values in both lists, once each, in their order in first."""
    result = []
    for value in first:
        if value in second and value not in result:
            result.append(value)
    return result
