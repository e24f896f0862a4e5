def neighbor_sums(grid: list[list[int]]) -> list[list[int]]:
    """Return each cell's sum of its four orthogonal neighbours."""
    rows = len(grid)
    result: list[list[int]] = []
    for r in range(rows):
        cols = len(grid[r])
        row: list[int] = []
        for c in range(cols):
            total = 0
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols:
                    total += grid[nr][nc]
            row.append(total)
        result.append(row)
    return result
