def spiral_order(grid: list[list[int]]) -> list[int]:
    """The grid's items in clockwise spiral order from the top left."""
    result: list[int] = []
    if not grid or not grid[0]:
        return result
    top, bottom, left, right = 0, len(grid) - 1, 0, len(grid[0]) - 1
    while top <= bottom and left <= right:
        result.extend(grid[top][col] for col in range(left, right + 1))
        result.extend(grid[row][right] for row in range(top + 1, bottom + 1))
        if top < bottom:
            result.extend(grid[bottom][col] for col in range(right - 1, left - 1, -1))
        if left < right:
            result.extend(grid[row][left] for row in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return result
