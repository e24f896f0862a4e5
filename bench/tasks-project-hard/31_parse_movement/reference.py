def parse_movement(line):
    fields = line.strip().split("|")
    if len(fields) != 6 or fields[0] != "STK":
        raise ValueError(f"not a stock movement line: {line!r}")
    _, day, bin_, sku, qty, user = fields
    return {
        "date": f"{day[:4]}-{day[4:6]}-{day[6:8]}",
        "bin": bin_,
        "sku": sku,
        "qty": int(qty),
        "user": user,
    }
