def fit(cell: str, width: int, align: str) -> str:
    """The cell cut or padded to exactly width characters."""
    if len(cell) > width:
        return cell[: width - 1] + "~"
    padding = width - len(cell)
    if align == "l":
        return cell + " " * padding
    if align == "r":
        return " " * padding + cell
    left = padding // 2
    return " " * left + cell + " " * (padding - left)


def format_table_row(cells: list[str], widths: list[int], aligns: str) -> str:
    """One table row: each cell fitted to its column, joined with " | "."""
    if not len(cells) == len(widths) == len(aligns):
        raise ValueError("cells, widths and aligns differ in length")
    if any(width < 1 for width in widths):
        raise ValueError("a width is below 1")
    if any(align not in "lrc" for align in aligns):
        raise ValueError("align letters are l, r or c")
    columns = [fit(c, w, a) for c, w, a in zip(cells, widths, aligns, strict=True)]
    return "| " + " | ".join(columns) + " |"
