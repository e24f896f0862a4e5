def zip_to_dict(keys: list, values: list) -> dict:
    """Map keys to the values at the same positions; missing values are None."""
    result = {}
    for index, key in enumerate(keys):
        result[key] = values[index] if index < len(values) else None
    return result
