from typing import Any


def transpose(matrix: list[list[Any]]) -> list[list[Any]]:
    """Return the transpose of a rectangular matrix."""
    if not matrix:
        return []
    return [[row[column] for row in matrix] for column in range(len(matrix[0]))]
