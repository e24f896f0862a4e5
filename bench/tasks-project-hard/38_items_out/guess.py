import re


def items_out(path):
    out = set()
    with open(path, encoding="utf-8") as log:
        for line in log:
            if not line.strip():
                continue
            upper = line.upper()
            match = re.search(r"(?:BARCODE|ITEM)[=: ]+(\w+)", line, re.IGNORECASE)
            if not match:
                continue
            barcode = match.group(1)
            if "RETURN" in upper or "CHECKIN" in upper:
                out.discard(barcode)
            elif "CHECKOUT" in upper or "LOAN" in upper or "LEND" in upper:
                out.add(barcode)
    return sorted(out)
