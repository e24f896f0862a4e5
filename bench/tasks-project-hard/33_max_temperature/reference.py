def max_temperature(path, device):
    best = None
    with open(path, encoding="utf-8") as log:
        for line in log:
            fields = line.split()
            if len(fields) < 4 or fields[0] != "R" or fields[2] != device:
                continue
            for field in fields[3:]:
                if field.startswith("tmp="):
                    value = int(field[4:]) / 10
                    if best is None or value > best:
                        best = value
    return best
