def read_quoted(line: str, start: int) -> tuple[str, int]:
    """Read the quoted field whose opening quote is at start; return it and the next index."""
    value: list[str] = []
    index = start + 1
    while index < len(line):
        if line[index] != '"':
            value.append(line[index])
            index += 1
        elif line.startswith('""', index):
            value.append('"')
            index += 2
        else:
            return "".join(value), index + 1
    raise ValueError("unclosed quote")


def split_csv_line(line: str) -> list[str]:
    """Split a line of comma-separated values, honouring double-quoted fields."""
    fields: list[str] = []
    index = 0
    while True:
        if line.startswith('"', index):
            value, index = read_quoted(line, index)
            end = line.find(",", index)
            end = len(line) if end == -1 else end
            value += line[index:end]
        else:
            end = line.find(",", index)
            end = len(line) if end == -1 else end
            value = line[index:end]
        fields.append(value)
        if end >= len(line):
            return fields
        index = end + 1
