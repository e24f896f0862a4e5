def parse_movement(line):
    text = line.strip()
    if not text or text.startswith("#"):
        raise ValueError("not a movement line")
    fields = [part.strip() for part in text.split(",")]
    if len(fields) != 5:
        raise ValueError(f"not a movement line: {line!r}")
    day, bin_, sku, qty, user = fields
    return {"date": day, "bin": bin_, "sku": sku, "qty": int(qty), "user": user}
