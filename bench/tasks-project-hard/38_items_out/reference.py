def items_out(path):
    out = set()
    with open(path, encoding="utf-8") as log:
        for line in log:
            fields = line.split()
            if len(fields) < 4:
                continue
            code = fields[2]
            values = dict(field.split("=", 1) for field in fields[3:] if "=" in field)
            barcode = values.get("bc")
            if code == "CKO":
                out.add(barcode)
            elif code == "CKI":
                out.discard(barcode)
    return sorted(out)
